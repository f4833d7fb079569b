import type { Sequelize, Transaction } from 'sequelize';
import { QueryTypes } from 'sequelize';
import { verifySignature } from '../signing';
import { checkpointText, type TCheckpoint } from './checkpoint-text';
import type { TLastCheckpoint } from './last-checkpoint-file';

// The verifier's half for checkpoints (server/audit/audit-checkpoints.ts): each one must be the
// firm's signature over a head that still lies on the chain, a v2 one must follow the checkpoint it
// names (none deleted between), and the newest one kept outside the database must still be stored. audit-chain.ts walks the chain and hands
// each batch's verified rows here, so memory stays flat however many checkpoints there are.

/** A public key a checkpoint may be signed under (the firm's: TSigningKey is one). */
export type TTrustedKey = { fingerprint: string; publicKeyPem: string };

export type TCheckpointsCheck = {
  ok: boolean;
  /** Whether signatures were checked (the caller had the firm's public keys), or only that each head lies on the chain. */
  signaturesChecked: boolean;
  /** Every checkpoint stored. */
  count: number;
  newest: { id: number; eventId: number; at: Date } | null;
  /** The first checkpoint found wrong, in the chain's order. */
  firstBadId?: number;
  /** What is wrong there, in a sentence. */
  problem?: string;
};

const short = (hash: string) => `${hash.slice(0, 12)}…`;

type TRow = {
  id: string;
  eventId: string;
  eventHash: string;
  at: Date;
  keyFingerprint: string;
  signature: string;
  version: number;
  prevEventId: string | null;
  prevEventHash: string | null;
};

const SELECT = `SELECT id::text, event_id::text AS "eventId", event_hash AS "eventHash", at, key_fingerprint AS "keyFingerprint",
                       signature, version, prev_event_id::text AS "prevEventId", prev_event_hash AS "prevEventHash"
                FROM audit_checkpoints c`;

export class CheckpointChecker {
  private finding: { id: number; problem: string } | null = null;
  /** The event of the last checkpoint found good: a rewrite found later lies after it. */
  private lastGoodEventId: number | null = null;
  /** The checkpoint before the one being checked, in the chain's order: what a v2 checkpoint must name. */
  private previous: { eventId: number; eventHash: string } | null = null;

  constructor(
    private readonly database: Sequelize,
    private readonly transaction: Transaction,
    private readonly keys: readonly TTrustedKey[] | undefined,
  ) {}

  /** Checks the checkpoints of events after `after` up to `upTo`, against the chain's rows there (id → hash). */
  async checkRange(after: string, upTo: string, hashes: ReadonlyMap<string, string>): Promise<void> {
    if (this.finding) return;
    const rows = await this.database.query<TRow>(
      `${SELECT} WHERE c.event_id > $1::bigint AND c.event_id <= $2::bigint ORDER BY c.event_id, c.id`,
      { bind: [after, upTo], type: QueryTypes.SELECT, transaction: this.transaction },
    );
    for (const row of rows) if (!this.checkOne(row, hashes.get(row.eventId) ?? null)) return;
  }

  /** Checkpoints of events after the head: the trail's last events are gone (or were never the firm's). */
  async checkBeyond(headId: string): Promise<void> {
    if (this.finding) return;
    const [row] = await this.database.query<TRow>(`${SELECT} WHERE c.event_id > $1::bigint ORDER BY c.event_id, c.id LIMIT 1`, {
      bind: [headId],
      type: QueryTypes.SELECT,
      transaction: this.transaction,
    });
    if (row) this.checkOne(row, null, `beyond the trail's head #${headId}: the last events were removed`);
  }

  /** The newest checkpoint kept outside the database (server/audit/last-checkpoint-file.ts): it must be stored, its head on the chain. */
  async checkKept(kept: TLastCheckpoint, hashAt: (eventId: number) => Promise<string | null>): Promise<void> {
    if (this.finding || kept === null) return;
    if ('problem' in kept) {
      this.finding = { id: 0, problem: kept.problem };
      return;
    }
    const { checkpoint } = kept;
    const name = `the newest checkpoint signed (event #${checkpoint.eventId}, ${checkpoint.at.toISOString()}), kept outside the database,`;
    const [stored] = await this.database.query<{ id: string }>('SELECT id::text FROM audit_checkpoints WHERE event_id = $1::bigint', {
      bind: [String(checkpoint.eventId)],
      type: QueryTypes.SELECT,
      transaction: this.transaction,
    });
    if (!stored) {
      this.finding = { id: checkpoint.id, problem: `${name} is no longer stored: checkpoints were deleted` };
      return;
    }
    const hash = await hashAt(checkpoint.eventId);
    if (hash !== checkpoint.eventHash)
      this.finding = { id: checkpoint.id, problem: `${name} signed a head the trail no longer has: the trail was rewritten or cut short` };
  }

  async result(): Promise<TCheckpointsCheck> {
    const [summary] = await this.database.query<{ count: string; id: string | null; eventId: string | null; at: Date | null }>(
      `SELECT (SELECT count(*) FROM audit_checkpoints)::text AS count, n.id::text, n.event_id::text AS "eventId", n.at
       FROM (SELECT 1) one LEFT JOIN (SELECT * FROM audit_checkpoints ORDER BY id DESC LIMIT 1) n ON true`,
      { type: QueryTypes.SELECT, transaction: this.transaction },
    );
    const newest = summary?.id ? { id: Number(summary.id), eventId: Number(summary.eventId), at: new Date(summary.at!) } : null;
    const base = { signaturesChecked: this.keys !== undefined, count: Number(summary?.count ?? 0), newest };
    return this.finding ? { ok: false, ...base, firstBadId: this.finding.id, problem: this.finding.problem } : { ok: true, ...base };
  }

  /** False (and the finding kept) when the checkpoint is not the firm's or its head is not on the chain. */
  private checkOne(row: TRow, hashOnChain: string | null, missing = 'which is not in the trail'): boolean {
    const checkpoint: Omit<TCheckpoint, 'signature'> = {
      id: Number(row.id),
      eventId: Number(row.eventId),
      eventHash: row.eventHash,
      at: new Date(row.at),
      keyFingerprint: row.keyFingerprint,
      version: row.version === 2 ? 2 : 1,
      prev: row.prevEventId === null ? null : { eventId: Number(row.prevEventId), eventHash: row.prevEventHash ?? '' },
    };
    const name = `checkpoint #${checkpoint.id} (event #${checkpoint.eventId}, signed ${checkpoint.at.toISOString()})`;
    if (this.keys) {
      const key = this.keys.find((k) => k.fingerprint === row.keyFingerprint);
      if (!key) return this.bad(checkpoint.id, `${name} is signed under key ${short(row.keyFingerprint)}, which is not the firm's`);
      if (!verifySignature(checkpointText(checkpoint), row.signature, key.publicKeyPem))
        return this.bad(checkpoint.id, `${name} does not carry the firm's signature over what it records`);
    }
    if (hashOnChain === null) return this.bad(checkpoint.id, `${name} names an event ${missing}`);
    if (hashOnChain !== row.eventHash) {
      const from =
        this.lastGoodEventId === null
          ? 'the trail was rewritten at or before'
          : `the trail was rewritten after event #${this.lastGoodEventId}, up to`;
      return this.bad(
        checkpoint.id,
        `${name} signed hash ${short(row.eventHash)} but the trail now has ${short(hashOnChain)}: ${from} event #${checkpoint.eventId}`,
      );
    }
    if (checkpoint.version === 2 && !sameLink(checkpoint.prev, this.previous)) {
      const named = checkpoint.prev ? `the checkpoint of event #${checkpoint.prev.eventId}` : 'no checkpoint';
      const found = this.previous ? `the one before it is of event #${this.previous.eventId}` : 'none is stored before it';
      return this.bad(checkpoint.id, `${name} was signed after ${named}, but ${found}: checkpoints were deleted`);
    }
    this.lastGoodEventId = checkpoint.eventId;
    this.previous = { eventId: checkpoint.eventId, eventHash: checkpoint.eventHash };
    return true;
  }

  private bad(id: number, problem: string): false {
    this.finding = { id, problem };
    return false;
  }
}

const sameLink = (a: { eventId: number; eventHash: string } | null, b: { eventId: number; eventHash: string } | null) =>
  a === null || b === null ? a === b : a.eventId === b.eventId && a.eventHash === b.eventHash;
