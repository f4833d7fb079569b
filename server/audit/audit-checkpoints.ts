import { QueryTypes, type Transaction } from 'sequelize';
import { db } from '../core/db/db';
import { trustedKeysOf, type TPublicKey, type TSigningKey } from '../signing';
import { verifyChainSince } from './audit-chain';
import { carriesSignature, checkpointText, type TCheckpoint, type TCheckpointLink } from './checkpoint-text';
import { readLastCheckpoint, trailIdentity, writeLastCheckpoint } from './last-checkpoint-file';

// Signed checkpoints of the trail (server/decisions/0023-signing-key.md): the chain's head signed with
// the firm's key, which the database never holds. Whoever can rewrite the chain and recompute every
// hash after the change (the owner, a copied backup) cannot sign, so a checkpoint whose head is no
// longer on the chain shows the rewrite (server/audit/check-checkpoints.ts). The signer signs only a
// chain it checked from the last head it signed (never a rewrite), names that head in what it signs
// (a checkpoint deleted from between others shows), and keeps the newest outside the database.

export { checkpointText, type TCheckpoint } from './checkpoint-text';

// Instances signing at once take turns: the second finds the head signed already.
const CHECKPOINT_LOCK_KEY = 7_340_025;

export type TCheckpointSigner = Pick<TSigningKey, 'fingerprint' | 'sign' | 'publicKeyPem' | 'retired' | 'file'>;

/** Signing was refused: the chain does not hold from the head signed last. */
export class CheckpointRefusedError extends Error {}

type THeadRow = { id: string | null; hash: string };
type TStoredRow = { eventId: string; eventHash: string; at: Date; keyFingerprint: string; signature: string; version: number } & {
  prevEventId: string | null;
  prevEventHash: string | null;
};

/** How far back the signer looks for a checkpoint carrying the firm's signature to start its check from. */
const ANCHOR_LOOKBACK = 20;

const STORED = `SELECT event_id::text AS "eventId", event_hash AS "eventHash", at, key_fingerprint AS "keyFingerprint", signature,
                       version, prev_event_id::text AS "prevEventId", prev_event_hash AS "prevEventHash"
                FROM audit_checkpoints`;

/** The newest of `rows` that carries one of `keys`' signatures over what it records. */
function firstSigned(rows: TStoredRow[], keys: readonly TPublicKey[]): TCheckpointLink | null {
  for (const row of rows) {
    const checkpoint = {
      eventId: Number(row.eventId),
      eventHash: row.eventHash,
      at: new Date(row.at),
      keyFingerprint: row.keyFingerprint,
      version: row.version === 2 ? (2 as const) : (1 as const),
      prev: row.prevEventId ? { eventId: Number(row.prevEventId), eventHash: row.prevEventHash ?? '' } : null,
    };
    if (carriesSignature(checkpoint, row.signature, keys)) return { eventId: checkpoint.eventId, eventHash: checkpoint.eventHash };
  }
  return null;
}

/** The newest stored checkpoint that carries one of `keys`' signatures: where the signer's check starts. */
async function newestSigned(transaction: Transaction, keys: readonly TPublicKey[]): Promise<TCheckpointLink | null> {
  const rows = await db().query<TStoredRow>(`${STORED} ORDER BY event_id DESC, id DESC LIMIT ${ANCHOR_LOOKBACK}`, {
    type: QueryTypes.SELECT,
    transaction,
  });
  return firstSigned(rows, keys);
}

/** Whether the head carries the firm's signature already (a row there may be one nobody signed). */
async function headSigned(transaction: Transaction, eventId: string, keys: readonly TPublicKey[]): Promise<boolean> {
  const rows = await db().query<TStoredRow>(`${STORED} WHERE event_id = $1::bigint`, {
    bind: [eventId],
    type: QueryTypes.SELECT,
    transaction,
  });
  return firstSigned(rows, keys) !== null;
}

/**
 * Signs the chain's head when no checkpoint has it yet; the checkpoint made, or null when the head
 * was signed already or the trail is empty. `at` is the checkpoint's time, from the caller's clock.
 * Throws CheckpointRefusedError when the chain does not hold from the head signed last; `onWarning`
 * hears what the signer found wrong but signs past (checkpoints deleted, the outside copy unreadable).
 */
export async function checkpointHead(
  key: TCheckpointSigner,
  now: () => Date,
  onWarning: (problem: string) => void = () => undefined,
): Promise<TCheckpoint | null> {
  const keys = trustedKeysOf(key);
  const trail = key.file ? await trailIdentity(db()) : '';
  const made = await db().transaction(async (transaction) => {
    await db().query('SELECT pg_advisory_xact_lock($1)', { bind: [CHECKPOINT_LOCK_KEY], transaction });
    const [head] = await db().query<THeadRow>(
      'SELECT h.last_id::text AS id, h.last_hash AS hash FROM audit_chain_head h WHERE h.singleton',
      { type: QueryTypes.SELECT, transaction },
    );
    if (!head || head.id === null || (await headSigned(transaction, head.id, keys))) return null;
    const prev = await startingPoint(transaction, key.file ? { file: key.file, trail } : null, keys, onWarning);
    const check = await verifyChainSince(db(), transaction, prev);
    if (!check.ok) {
      const since = prev ? `since the checkpoint of event #${prev.eventId}` : 'from its first event';
      throw new CheckpointRefusedError(`the trail does not verify ${since}, at event #${check.firstBadId}: ${check.problem}`);
    }
    const unsigned = {
      eventId: Number(head.id),
      eventHash: head.hash,
      at: now(),
      keyFingerprint: key.fingerprint,
      version: 2 as const,
      prev,
    };
    const signature = key.sign(checkpointText(unsigned));
    const [row] = await db().query<{ id: string }>(
      `INSERT INTO audit_checkpoints (event_id, event_hash, at, key_fingerprint, signature, version, prev_event_id, prev_event_hash)
       VALUES ($1, $2, $3, $4, $5, 2, $6, $7) RETURNING id::text`,
      {
        bind: [head.id, head.hash, unsigned.at, key.fingerprint, signature, prev?.eventId ?? null, prev?.eventHash ?? null],
        type: QueryTypes.SELECT,
        transaction,
      },
    );
    return row ? { id: Number(row.id), ...unsigned, signature } : null;
  });
  // Kept once committed: a copy of a checkpoint that never committed would read as one deleted.
  if (made && key.file) writeLastCheckpoint(key.file, trail, made);
  return made;
}

/** The head signed last: the newest stored checkpoint with the firm's signature, or the copy outside the database when that is newer. */
async function startingPoint(
  transaction: Transaction,
  keptAt: { file: string; trail: string } | null,
  keys: readonly TPublicKey[],
  onWarning: (problem: string) => void,
): Promise<TCheckpointLink | null> {
  const stored = await newestSigned(transaction, keys);
  const kept = keptAt ? readLastCheckpoint(keptAt.file, keptAt.trail, keys) : null;
  if (kept && 'problem' in kept) onWarning(kept.problem);
  if (kept && 'checkpoint' in kept && kept.checkpoint.eventId > (stored?.eventId ?? 0)) {
    const { eventId, eventHash, at } = kept.checkpoint;
    onWarning(`the checkpoint of event #${eventId}, signed ${at.toISOString()}, is no longer stored: checkpoints were deleted`);
    return { eventId, eventHash };
  }
  return stored;
}
