import { createCipheriv, createDecipheriv, createPrivateKey, hkdfSync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadSigningKey, SigningKeyError } from './signing-key';

// Keys derived from the firm's signing key file, one per label (server/decisions/0023-signing-key.md):
// what they seal, a copy of the database alone cannot open. Node's own crypto: HKDF-SHA256 and AES-256-GCM.

/**
 * 32 bytes: HKDF-SHA256 over the Ed25519 private key's 32 raw bytes (not the PEM's text, so a
 * re-encoded file gives the same key) under `info`. The file is checked as the server checks it
 * (mode 0600, Ed25519), and made only when `create` (the server's default path).
 */
export function subkeyFrom(file: string, info: string, { create }: { create: boolean }): { key: Buffer; fingerprint: string } {
  const { fingerprint } = loadSigningKey(file, { create });
  const jwk = createPrivateKey(readFileSync(file, 'utf8')).export({ format: 'jwk' });
  if (!jwk.d) throw new SigningKeyError(`${file}: the private key's bytes cannot be read`);
  return { key: Buffer.from(hkdfSync('sha256', Buffer.from(jwk.d, 'base64url'), Buffer.alloc(0), info, 32)), fingerprint };
}

const TAG_BYTES = 16;

/** AES-256-GCM under `key`: `iv.tag.ciphertext`, each base64url. */
export function sealText(key: Buffer, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), body].map((part) => part.toString('base64url')).join('.');
}

/** What sealText sealed; throws when the text was changed or sealed under another key. */
export function openText(key: Buffer, sealed: string): string {
  const [iv = '', tag = '', body = ''] = sealed.split('.');
  // The whole 16-byte tag, always: GCM would check a shortened one, which a database writer could guess.
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), { authTagLength: TAG_BYTES });
  const tagBytes = Buffer.from(tag, 'base64url');
  if (tagBytes.length !== TAG_BYTES) throw new Error('a sealed text carries a 16-byte tag');
  decipher.setAuthTag(tagBytes);
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}
