import { createPrivateKey, hkdfSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadSigningKey, SigningKeyError } from './signing-key';

// A backup's key when BACKUP_KEY is unset (server/backup/README.md "The key"): derived from the
// firm's signing key, so the one secret file kept apart from the database also opens its backups.
const INFO = 'firm-chat backup v1';

/**
 * 32 bytes: HKDF-SHA256 over the Ed25519 private key's 32 raw bytes (not the PEM's text, so a
 * re-encoded file gives the same key) with a fixed info string. The file is checked as the server
 * checks it (mode 0600, Ed25519), and made only when `create` (the server's default path).
 */
export function backupKeyFrom(file: string, { create }: { create: boolean }): { key: Buffer; fingerprint: string } {
  const { fingerprint } = loadSigningKey(file, { create });
  const jwk = createPrivateKey(readFileSync(file, 'utf8')).export({ format: 'jwk' });
  if (!jwk.d) throw new SigningKeyError(`${file}: the private key's bytes cannot be read`);
  const key = Buffer.from(hkdfSync('sha256', Buffer.from(jwk.d, 'base64url'), Buffer.alloc(0), INFO, 32));
  return { key, fingerprint };
}
