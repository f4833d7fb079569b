import { subkeyFrom } from './sealed-text';

// A backup's key when BACKUP_KEY is unset (server/backup/README.md "The key"): derived from the
// firm's signing key, so the one secret file kept apart from the database also opens its backups.
const INFO = 'firm-chat backup v1';

/** 32 bytes derived from the signing key file (sealed-text.ts), made only when `create` (the server's default path). */
export function backupKeyFrom(file: string, { create }: { create: boolean }): { key: Buffer; fingerprint: string } {
  return subkeyFrom(file, INFO, { create });
}
