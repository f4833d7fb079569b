import { createHmac } from 'node:crypto';
import { backupKeyFrom, SigningKeyError } from '../signing';

// Which key seals and opens a backup (server/backup/README.md "The key"): BACKUP_KEY when set,
// else one derived from the firm's signing key file.

export type TBackupKey = {
  key: Buffer;
  /** 16 bytes, hex: named in the file's header so a wrong key is told apart from an edited file; reveals nothing of the key. */
  id: string;
  /** 1: BACKUP_KEY; 2: derived from the signing key file. */
  source: 1 | 2;
  /** Where it came from, for messages: never the key itself. */
  describe: string;
};

export class BackupKeyError extends Error {
  override name = 'BackupKeyError';
}

const HEX = /^[0-9a-fA-F]{64}$/;
const BASE64 = /^[A-Za-z0-9+/]{43}=$/;

/** BACKUP_KEY's text as 32 bytes: 64 hex digits, or standard base64 (44 characters ending in '='). Anything else is refused. */
export function parseBackupKey(text: string): Buffer {
  const trimmed = text.trim();
  if (HEX.test(trimmed)) return Buffer.from(trimmed, 'hex');
  if (BASE64.test(trimmed)) {
    const bytes = Buffer.from(trimmed, 'base64');
    if (bytes.length === 32) return bytes;
  }
  throw new BackupKeyError(
    'BACKUP_KEY must be 32 bytes written as 64 hex digits or as base64 (44 characters), such as the output of `openssl rand -hex 32`.',
  );
}

export const backupKeyId = (key: Buffer) =>
  createHmac('sha256', key).update('firm-chat backup key id v1').digest().subarray(0, 16).toString('hex');

/**
 * The key from the config. `create`: make the signing key file when it is missing and at its default
 * path (a backup, like the server's first start); a restore or a check never makes one.
 */
export function resolveBackupKey(
  config: { backupKey: string | undefined; signingKeyFile: string; signingKeyCreate: boolean },
  { create }: { create: boolean },
): TBackupKey {
  if (config.backupKey !== undefined) {
    const key = parseBackupKey(config.backupKey);
    return { key, id: backupKeyId(key), source: 1, describe: 'BACKUP_KEY' };
  }
  try {
    const { key, fingerprint } = backupKeyFrom(config.signingKeyFile, { create: create && config.signingKeyCreate });
    return {
      key,
      id: backupKeyId(key),
      source: 2,
      describe: `the signing key ${config.signingKeyFile} (fingerprint ${fingerprint.slice(0, 16)}…)`,
    };
  } catch (error) {
    if (!(error instanceof SigningKeyError)) throw error;
    throw new BackupKeyError(
      `no backup key: BACKUP_KEY is unset and the signing key cannot be used (${error.message}); set SIGNING_KEY_FILE to the firm's key file, or BACKUP_KEY to the key the backups are made with.`,
    );
  }
}
