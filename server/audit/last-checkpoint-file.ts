import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { TPublicKey } from '../signing';
import { carriesSignature, type TCheckpoint } from './checkpoint-text';

// The newest checkpoint signed of each trail, kept beside the signing key, outside the database
// (server/decisions/0023-signing-key.md): whoever deletes the newest checkpoints from the table (the
// database's owner) cannot delete this copy, so the verifier and the next signing still know the head
// signed last. One file per key, an entry per trail: a key may sign several databases' trails (a
// staging copy, the tests'). Written after the checkpoint commits, replaced atomically.

export const lastCheckpointFileOf = (keyFile: string) => `${keyFile}.checkpoints.json`;

/** A kept checkpoint, checked; null when none is kept for the trail. */
export type TLastCheckpoint = { checkpoint: TCheckpoint } | { problem: string } | null;

/**
 * Which trail: the cluster's system identifier (fixed when the cluster was made: a restore elsewhere
 * is another trail) and the database's name. The identifier is left out where the login may not read it.
 */
export async function trailIdentity(database: Sequelize, transaction?: Transaction): Promise<string> {
  const [row] = await database.query<{ system: string | null; name: string }>(
    `SELECT current_database() AS name,
            CASE WHEN has_function_privilege('pg_catalog.pg_control_system()', 'EXECUTE')
                 THEN (SELECT system_identifier::text FROM pg_control_system()) END AS system`,
    { type: QueryTypes.SELECT, transaction },
  );
  return `${row!.system ?? 'cluster'}/${row!.name}`;
}

function readEntries(keyFile: string): Record<string, unknown> {
  const text = readFileSync(lastCheckpointFileOf(keyFile), 'utf8');
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
  return parsed as Record<string, unknown>;
}

function writeEntries(keyFile: string, entries: Record<string, unknown>): void {
  const file = lastCheckpointFileOf(keyFile);
  const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(entries, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, file);
}

const entriesOrEmpty = (keyFile: string) => {
  try {
    return readEntries(keyFile);
  } catch {
    return {};
  }
};

export function writeLastCheckpoint(keyFile: string, trail: string, checkpoint: TCheckpoint): void {
  writeEntries(keyFile, { ...entriesOrEmpty(keyFile), [trail]: { ...checkpoint, at: checkpoint.at.toISOString() } });
}

/** A trail restored from a backup starts again from what the backup holds: its kept checkpoint goes. */
export function forgetLastCheckpoint(keyFile: string, trail: string): void {
  const entries = entriesOrEmpty(keyFile);
  if (!(trail in entries)) return;
  delete entries[trail];
  writeEntries(keyFile, entries);
}

/** The trail's checkpoint kept outside the database, checked under `keys`. */
export function readLastCheckpoint(keyFile: string, trail: string, keys: readonly TPublicKey[]): TLastCheckpoint {
  const file = lastCheckpointFileOf(keyFile);
  let entries: Record<string, unknown>;
  try {
    entries = readEntries(keyFile);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return { problem: `the newest checkpoints kept outside the database (${file}) cannot be read` };
  }
  const entry = entries[trail] as (Omit<TCheckpoint, 'at'> & { at: string }) | undefined;
  if (entry === undefined) return null;
  let signed = false;
  let checkpoint: TCheckpoint | null = null;
  try {
    checkpoint = { ...entry, at: new Date(entry.at) };
    signed = carriesSignature(checkpoint, checkpoint.signature, keys);
  } catch {
    signed = false;
  }
  if (!signed || !checkpoint)
    return { problem: `the newest checkpoint kept outside the database (${file}) does not carry the firm's signature` };
  return { checkpoint };
}
