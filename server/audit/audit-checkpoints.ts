import { QueryTypes } from 'sequelize';
import { db } from '../core/db/db';
import type { TSigningKey } from '../signing';

// Signed checkpoints of the trail (server/decisions/0023-signing-key.md): the chain's head signed with
// the firm's key, which the database never holds. Whoever can rewrite the chain and recompute every
// hash after the change (the owner, a copied backup) cannot sign, so a checkpoint whose head is no
// longer on the chain shows the rewrite (server/audit/check-checkpoints.ts).

/** One checkpoint as stored: the head it signed, when, and under which key. */
export type TCheckpoint = { id: number; eventId: number; eventHash: string; at: Date; keyFingerprint: string; signature: string };

/**
 * The bytes a checkpoint's signature covers: every field but its own row id, one per line, the time
 * in UTC to the millisecond. Versioned, so a later form cannot be mistaken for this one.
 */
export const checkpointText = (c: Pick<TCheckpoint, 'eventId' | 'eventHash' | 'at' | 'keyFingerprint'>): string =>
  `firm-chat audit checkpoint v1\nevent ${c.eventId}\nhash ${c.eventHash}\nat ${c.at.toISOString()}\nkey ${c.keyFingerprint}\n`;

// Instances signing at once take turns: the second finds the head signed already.
const CHECKPOINT_LOCK_KEY = 7_340_025;

type THeadRow = { id: string | null; hash: string; signed: boolean };

/**
 * Signs the chain's head when no checkpoint has it yet; the checkpoint made, or null when the head
 * was signed already or the trail is empty. `at` is the checkpoint's time, from the caller's clock.
 */
export async function checkpointHead(key: Pick<TSigningKey, 'fingerprint' | 'sign'>, now: () => Date): Promise<TCheckpoint | null> {
  return db().transaction(async (transaction) => {
    await db().query('SELECT pg_advisory_xact_lock($1)', { bind: [CHECKPOINT_LOCK_KEY], transaction });
    const [head] = await db().query<THeadRow>(
      `SELECT h.last_id::text AS id, h.last_hash AS hash,
              EXISTS (SELECT 1 FROM audit_checkpoints c WHERE c.event_id = h.last_id) AS signed
       FROM audit_chain_head h WHERE h.singleton`,
      { type: QueryTypes.SELECT, transaction },
    );
    if (!head || head.id === null || head.signed) return null;
    const unsigned = { eventId: Number(head.id), eventHash: head.hash, at: now(), keyFingerprint: key.fingerprint };
    const signature = key.sign(checkpointText(unsigned));
    const [row] = await db().query<{ id: string }>(
      `INSERT INTO audit_checkpoints (event_id, event_hash, at, key_fingerprint, signature)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT (event_id) DO NOTHING RETURNING id::text`,
      { bind: [head.id, head.hash, unsigned.at, key.fingerprint, signature], type: QueryTypes.SELECT, transaction },
    );
    return row ? { id: Number(row.id), ...unsigned, signature } : null;
  });
}
