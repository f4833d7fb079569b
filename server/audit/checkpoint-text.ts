import { verifySignature, type TPublicKey } from '../signing';

// What a checkpoint of the trail is and the bytes its signature covers (server/audit/audit-checkpoints.ts).

/** The head a checkpoint was signed after, in the form v2: the previous checkpoint's event and hash. */
export type TCheckpointLink = { eventId: number; eventHash: string };

/** One checkpoint as stored: the head it signed, when, under which key, and (v2) the checkpoint before it. */
export type TCheckpoint = {
  id: number;
  eventId: number;
  eventHash: string;
  at: Date;
  keyFingerprint: string;
  signature: string;
  /** 1: the head alone; 2: the head and the checkpoint before it (`prev`, null for the first). */
  version: 1 | 2;
  prev: TCheckpointLink | null;
};

/**
 * The bytes a checkpoint's signature covers: every field but its own row id, one per line, the time
 * in UTC to the millisecond. Versioned, so a later form cannot be mistaken for an earlier one.
 */
export function checkpointText(c: Omit<TCheckpoint, 'id' | 'signature'>): string {
  const head = `event ${c.eventId}\nhash ${c.eventHash}\nat ${c.at.toISOString()}\nkey ${c.keyFingerprint}\n`;
  if (c.version === 1) return `firm-chat audit checkpoint v1\n${head}`;
  return `firm-chat audit checkpoint v2\n${head}prev ${c.prev ? `${c.prev.eventId} ${c.prev.eventHash}` : 'none'}\n`;
}

/** Whether `signature` is one of `keys`' (the one the checkpoint names) over what the checkpoint records. */
export function carriesSignature(c: Omit<TCheckpoint, 'id' | 'signature'>, signature: string, keys: readonly TPublicKey[]): boolean {
  const key = keys.find((k) => k.fingerprint === c.keyFingerprint);
  return key !== undefined && verifySignature(checkpointText(c), signature, key.publicKeyPem);
}
