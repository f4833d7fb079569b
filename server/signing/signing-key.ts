import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

// The firm's Ed25519 key, kept in a file the database never holds (server/decisions/0023-signing-key.md):
// what it signs proves origin even to someone holding the app's database login. Node's own crypto.

/** The firm's signing key as the app uses it: its public half to hand out, and signing. */
export type TSigningKey = {
  /** The public key, PEM (SPKI). */
  publicKeyPem: string;
  /** SHA-256 of the public key's DER (SPKI) bytes, lowercase hex: the name a signature is checked under. */
  fingerprint: string;
  /** A base64 Ed25519 signature over `data`. */
  sign: (data: Buffer | string) => string;
  /**
   * Public keys of the firm's earlier signing keys (`<SIGNING_KEY_FILE>.retired.pem`), so what they
   * signed keeps verifying after a rotation; empty when there is no such file.
   */
  retired: readonly TPublicKey[];
  /** The key's file, beside which what it signed last is kept (server/audit/last-checkpoint-file.ts); null for a key from a PEM. */
  file: string | null;
};

/** A public key as a check needs it. */
export type TPublicKey = { publicKeyPem: string; fingerprint: string };

export class SigningKeyError extends Error {}

/** The fingerprint of a public key (PEM or KeyObject): SHA-256 of its SPKI DER, hex. */
export function fingerprintOf(publicKey: string | KeyObject): string {
  const key = typeof publicKey === 'string' ? createPublicKey(publicKey) : publicKey;
  return createHash('sha256')
    .update(key.export({ type: 'spki', format: 'der' }))
    .digest('hex');
}

/** Whether `signature` (base64) is `publicKeyPem`'s Ed25519 signature over `data`; false for anything malformed. */
export function verifySignature(data: Buffer | string, signature: string, publicKeyPem: string): boolean {
  try {
    const bytes = Buffer.from(signature, 'base64');
    if (bytes.length !== 64) return false;
    return verify(null, typeof data === 'string' ? Buffer.from(data) : data, createPublicKey(publicKeyPem), bytes);
  } catch {
    return false;
  }
}

/** The key from a private-key PEM. */
export function signingKeyFromPem(privateKeyPem: string): TSigningKey {
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(privateKeyPem);
  } catch {
    throw new SigningKeyError('not a PEM private key');
  }
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new SigningKeyError(`an ${privateKey.asymmetricKeyType} key, not Ed25519`);
  const publicKey = createPublicKey(privateKey);
  return {
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    fingerprint: fingerprintOf(publicKey),
    sign: (data) => sign(null, typeof data === 'string' ? Buffer.from(data) : data, privateKey).toString('base64'),
    retired: [],
    file: null,
  };
}

/**
 * Reads the key file, or makes it (mode 0600) when `create` and there is none. Made atomically: two
 * servers starting at once both end with the one key that won. A file others may read is refused:
 * whoever can read it can sign as the firm.
 */
export function loadSigningKey(file: string, { create }: { create: boolean }): TSigningKey {
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new SigningKeyError(`cannot read ${file}: ${(error as Error).message}`);
    if (!create) throw new SigningKeyError(`${file} does not exist`);
    pem = createKeyFile(file);
  }
  const mode = statSync(file).mode & 0o777;
  if (mode & 0o077) throw new SigningKeyError(`${file} may be read by others (mode ${mode.toString(8)}): chmod 600 it`);
  let key: TSigningKey;
  try {
    key = signingKeyFromPem(pem);
  } catch (error) {
    throw new SigningKeyError(`${file}: ${(error as Error).message}`);
  }
  return { ...key, retired: readRetiredKeys(`${file}.retired.pem`), file };
}

/** The public keys in a file of PEM blocks one after another; none when there is no file. */
export function readRetiredKeys(file: string): TPublicKey[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new SigningKeyError(`cannot read ${file}: ${(error as Error).message}`);
  }
  const blocks = text.match(/-----BEGIN PUBLIC KEY-----[\s\S]*?-----END PUBLIC KEY-----/g) ?? [];
  return blocks.map((block, index) => {
    try {
      const key = createPublicKey(block);
      if (key.asymmetricKeyType !== 'ed25519') throw new Error(`an ${key.asymmetricKeyType} key, not Ed25519`);
      return { publicKeyPem: key.export({ type: 'spki', format: 'pem' }).toString(), fingerprint: fingerprintOf(key) };
    } catch (error) {
      throw new SigningKeyError(`${file}: public key ${index + 1}: ${(error as Error).message}`);
    }
  });
}

/** The key and the retired ones: every public key whose signatures are the firm's. */
export const trustedKeysOf = (key: TPublicKey & Pick<TSigningKey, 'retired'>): TPublicKey[] => [
  { publicKeyPem: key.publicKeyPem, fingerprint: key.fingerprint },
  ...key.retired,
];

function createKeyFile(file: string): string {
  const { privateKey } = generateKeyPairSync('ed25519');
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(temporary, pem, { mode: 0o600, flag: 'wx' });
  chmodSync(temporary, 0o600); // the umask may have narrowed nothing, but never widened it either
  try {
    linkSync(temporary, file); // fails if another process made the file first: then theirs is the key
    return pem;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return readFileSync(file, 'utf8');
  } finally {
    unlinkSync(temporary);
  }
}
