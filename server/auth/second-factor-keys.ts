import { createHmac } from 'node:crypto';
import { openText, sealText, subkeyFrom } from '../signing';

// The keys second factors are kept under, derived from the firm's signing key file as the backup key
// is (server/signing/derive-backup-key.ts), each under its own label: a copy of the database alone
// opens no authenticator seed and checks no recovery code (server/decisions/0023-signing-key.md).
const SEED_INFO = 'firm-chat totp seeds v1';
const RECOVERY_INFO = 'firm-chat recovery codes v1';

export type TSecondFactorKeys = {
  /** AES-256-GCM, the seed sealed as `iv.tag.ciphertext` (base64url). */
  seal: (plain: string) => string;
  open: (sealed: string) => string;
  /** The stored form of a recovery code: HMAC-SHA256 under a key the database never holds, hex. */
  hashRecoveryCode: (code: string) => string;
};

function deriveKey(file: string, info: string): Buffer {
  return subkeyFrom(file, info, { create: false }).key; // checked as the server checks it (mode 0600, Ed25519)
}

/** The keys of a signing key file, derived at first use (a router made for a test that never uses them reads no file). */
export function secondFactorKeysFrom(file: string): () => TSecondFactorKeys {
  let keys: TSecondFactorKeys | undefined;
  return () => (keys ??= makeKeys(deriveKey(file, SEED_INFO), deriveKey(file, RECOVERY_INFO)));
}

export function makeKeys(seedKey: Buffer, recoveryKey: Buffer): TSecondFactorKeys {
  return {
    seal: (plain) => sealText(seedKey, plain),
    open: (sealed) => openText(seedKey, sealed),
    hashRecoveryCode: (code) => createHmac('sha256', recoveryKey).update(code).digest('hex'),
  };
}
