import { createHash } from 'node:crypto';
import type { Sequelize } from 'sequelize';
import { QueryTypes, Transaction } from 'sequelize';
import { CheckpointChecker, type TCheckpointsCheck, type TTrustedKey } from './check-checkpoints';
import { readLastCheckpoint, trailIdentity } from './last-checkpoint-file';

// The trail's hash chain (server/records/README.md "Records"; server/decisions/0018-hash-chained-trail-and-request-role.md).
// Each row's hash is SHA-256 over the previous row's hash (64 zeros before the first) followed by
// the row's canonical JSON. The database writes it (the insert trigger of migration 0020); this
// module checks it independently: it builds the canonical text itself from the stored columns, so
// a changed trigger or canonical function cannot make a forged row look right.

export const GENESIS_HASH = '0'.repeat(64);
const BATCH = 5_000;

export type TChainHead = { id: number | null; hash: string; at: Date | null };
export type TChainCheck = {
  ok: boolean;
  rows: number;
  /** The first row whose link or hash does not match; the head's id when rows after the last one are missing. */
  firstBadId?: number;
  /** What is wrong there, in a sentence. */
  problem?: string;
  head: TChainHead;
  /** The signed checkpoints: how many, the newest, the first found wrong (its problem is also `problem` when the chain holds). */
  checkpoints: TCheckpointsCheck;
};

/** A JSON string as PostgreSQL's jsonb writes it: only `"`, `\` and control characters escaped. */
function jsonbString(value: string): string {
  let out = '"';
  for (const ch of value) {
    const code = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (code < 0x20) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

export type TChainRow = {
  id: string;
  /** UTC to the microsecond: `YYYY-MM-DDTHH:MM:SS.ffffffZ`. */
  at: string;
  userId: number | null;
  action: string;
  subject: string;
  /** The detail as jsonb's own text (its canonical form). */
  detail: string;
};

/**
 * The row's canonical JSON: the object jsonb_build_object would write for it, keys ordered as jsonb
 * orders them (shorter first, then by bytes): at, id, user, action, detail, subject.
 */
export function canonicalAuditEvent(row: TChainRow): string {
  return `{"at": ${jsonbString(row.at)}, "id": ${row.id}, "user": ${row.userId ?? 'null'}, "action": ${jsonbString(row.action)}, "detail": ${row.detail}, "subject": ${jsonbString(row.subject)}}`;
}

export const hashAuditEvent = (prevHash: string, row: TChainRow): string =>
  createHash('sha256')
    .update(prevHash + canonicalAuditEvent(row), 'utf8')
    .digest('hex');

async function hashAt(database: Sequelize, transaction: Transaction, eventId: number): Promise<string | null> {
  const [row] = await database.query<{ hash: string }>('SELECT hash FROM audit_events WHERE id = $1::bigint', {
    bind: [String(eventId)],
    type: QueryTypes.SELECT,
    transaction,
  });
  return row?.hash ?? null;
}

/** The chain's head as the database keeps it: the last row's id and hash. */
export async function readChainHead(database: Sequelize, transaction?: Transaction): Promise<TChainHead> {
  const [head] = await database.query<{ id: string | null; hash: string; at: Date | null }>(
    `SELECT h.last_id::text AS id, h.last_hash AS hash, (SELECT e.at FROM audit_events e WHERE e.id = h.last_id) AS at
     FROM audit_chain_head h WHERE h.singleton`,
    { type: QueryTypes.SELECT, transaction },
  );
  if (!head) throw new Error('The audit trail has no chain head: the database is not migrated');
  return { id: head.id === null ? null : Number(head.id), hash: head.hash, at: head.at ? new Date(head.at) : null };
}

/**
 * Walks the chain from its first row to the head read at the start (rows appended meanwhile are
 * the next run's), a batch at a time so memory stays flat over a million rows, and checks every
 * signed checkpoint against it (check-checkpoints.ts): its signature under `keys`, the firm's public
 * keys (without them, as after a restore, only that its head lies on the chain), and its head. One
 * snapshot throughout, so a checkpoint signed meanwhile is not taken for one beyond the head.
 * `onProgress` hears the rows checked so far.
 */
export async function verifyAuditChain(
  database: Sequelize,
  onProgress?: (rows: number) => void,
  { keys, keyFile }: { keys?: readonly TTrustedKey[]; keyFile?: string | null } = {},
): Promise<TChainCheck> {
  // Read before the snapshot begins, so the checkpoint it names committed before what is read.
  const kept = keys && keyFile ? readLastCheckpoint(keyFile, await trailIdentity(database), keys) : null;
  return database.transaction({ isolationLevel: Transaction.ISOLATION_LEVELS.REPEATABLE_READ, readOnly: true }, async (transaction) => {
    const checkpoints = new CheckpointChecker(database, transaction, keys);
    const chain = await walkChain(database, transaction, checkpoints, onProgress);
    if (chain.ok) await checkpoints.checkKept(kept, (eventId) => hashAt(database, transaction, eventId));
    const checked = { ...chain, checkpoints: await checkpoints.result() };
    if (!chain.ok || checked.checkpoints.ok) return checked;
    return { ...checked, ok: false, problem: checked.checkpoints.problem };
  });
}

type TWalk = { ok: true; rows: number } | { ok: false; rows: number; firstBadId: number; problem: string };

/**
 * Checks the rows after `from` (an event's id and hash: genesis is id 0) up to the head, link by
 * link and each against its hash, a batch at a time; `onBatch` hears each batch's ids and hashes.
 */
async function walkLinks(
  database: Sequelize,
  transaction: Transaction,
  from: { id: string; hash: string },
  head: TChainHead,
  onBatch?: (after: string, upTo: string, hashes: ReadonlyMap<string, string>, rows: number) => Promise<void>,
): Promise<TWalk> {
  let prev = from.hash;
  let rows = 0;
  let after = from.id;
  let lastId: string | null = null;
  const bad = (id: string | number, problem: string): TWalk => ({ ok: false, rows, firstBadId: Number(id), problem });
  if (head.id !== null && head.id > Number(from.id)) {
    for (;;) {
      const batch = await database.query<TChainRow & { prevHash: string; hash: string }>(
        `SELECT id::text, prev_hash AS "prevHash", hash, user_id AS "userId", action, subject, detail::text AS detail,
                to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at
         FROM audit_events e WHERE e.id > $1::bigint AND e.id <= $2::bigint ORDER BY e.id LIMIT ${BATCH}`,
        { bind: [after, String(head.id)], type: QueryTypes.SELECT, transaction },
      );
      const hashes = new Map<string, string>();
      for (const row of batch) {
        if (row.prevHash !== prev)
          return bad(
            row.id,
            rows === 0 && from.id === '0' ? 'the first row does not start the chain' : 'the row before it is missing or was changed',
          );
        if (hashAuditEvent(prev, row) !== row.hash) return bad(row.id, 'its content does not match its hash');
        prev = row.hash;
        rows++;
        lastId = row.id;
        hashes.set(row.id, row.hash);
      }
      // A full batch covers the ids up to its last row; the last batch, every id up to the head.
      const full = batch.length === BATCH;
      await onBatch?.(after, full ? batch[batch.length - 1]!.id : String(head.id), hashes, rows);
      if (!full) break;
      after = batch[batch.length - 1]!.id;
    }
  }
  const endsAtHead =
    lastId === null
      ? (head.id ?? 0) === Number(from.id) && (head.id === null || prev === head.hash)
      : Number(lastId) === head.id && prev === head.hash;
  if (!endsAtHead) return bad(head.id ?? 0, 'the last rows of the trail are missing');
  return { ok: true, rows };
}

async function walkChain(
  database: Sequelize,
  transaction: Transaction,
  checkpoints: CheckpointChecker,
  onProgress?: (rows: number) => void,
): Promise<Omit<TChainCheck, 'checkpoints'>> {
  const head = await readChainHead(database, transaction);
  const walked = await walkLinks(database, transaction, { id: '0', hash: GENESIS_HASH }, head, async (after, upTo, hashes, rows) => {
    onProgress?.(rows);
    await checkpoints.checkRange(after, upTo, hashes);
  });
  if (!walked.ok) return { ...walked, head };
  await checkpoints.checkBeyond(String(head.id ?? 0));
  return { ok: true, rows: walked.rows, head };
}

/**
 * Whether the chain still holds from a head signed earlier (`from`: its event's id and hash) to
 * today's head: the row there unchanged, and every row after it linked and matching its hash. What
 * a signer checks before signing the head, so a rewrite since its last checkpoint is never signed.
 */
export async function verifyChainSince(
  database: Sequelize,
  transaction: Transaction,
  from: { eventId: number; eventHash: string } | null,
): Promise<TWalk> {
  const head = await readChainHead(database, transaction);
  if (from) {
    const hash = await hashAt(database, transaction, from.eventId);
    if (hash === null) return { ok: false, rows: 0, firstBadId: from.eventId, problem: 'the event signed last is no longer in the trail' };
    if (hash !== from.eventHash) return { ok: false, rows: 0, firstBadId: from.eventId, problem: 'the event signed last was rewritten' };
  }
  return walkLinks(
    database,
    transaction,
    from ? { id: String(from.eventId), hash: from.eventHash } : { id: '0', hash: GENESIS_HASH },
    head,
  );
}
