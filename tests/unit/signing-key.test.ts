import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkSigned, verifyDigest } from '../../server/export/export-signature';
import { fingerprintOf, loadSigningKey, trustedKeysOf, verifySignature } from '../../server/signing';

// The firm's signing key lives in a file of its own (server/decisions/0023-signing-key.md).
describe('the signing key file', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'signing-key-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is made once, readable by its owner only, and the same key is read back', () => {
    const file = path.join(dir, 'firm-signing-key.pem');
    const made = loadSigningKey(file, { create: true });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const again = loadSigningKey(file, { create: false });
    expect(again.fingerprint).toBe(made.fingerprint);
    expect(made.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(fingerprintOf(made.publicKeyPem)).toBe(made.fingerprint);
  });

  it('signs so that only the same bytes under the same public key verify', () => {
    const key = loadSigningKey(path.join(dir, 'k.pem'), { create: true });
    const other = loadSigningKey(path.join(dir, 'other.pem'), { create: true });
    const signature = key.sign('manifest bytes');
    expect(verifySignature('manifest bytes', signature, key.publicKeyPem)).toBe(true);
    expect(verifySignature('manifest bytez', signature, key.publicKeyPem)).toBe(false);
    expect(verifySignature('manifest bytes', signature, other.publicKeyPem)).toBe(false);
    expect(verifySignature('manifest bytes', 'not base64 at all', key.publicKeyPem)).toBe(false);
  });

  it('refuses a named file that is missing, readable by others, or not an Ed25519 key', () => {
    expect(() => loadSigningKey(path.join(dir, 'typo.pem'), { create: false })).toThrow(/does not exist/);
    const open = path.join(dir, 'open.pem');
    loadSigningKey(open, { create: true });
    chmodSync(open, 0o644);
    expect(() => loadSigningKey(open, { create: false })).toThrow(/may be read by others \(mode 644\)/);
    const rsa = path.join(dir, 'rsa.pem');
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    writeFileSync(rsa, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    expect(() => loadSigningKey(rsa, { create: false })).toThrow(/rsa key, not Ed25519/);
  });

  it('after a rotation, what the retired key signed is still the firm’s, and another key’s is not', () => {
    const file = path.join(dir, 'current.pem');
    const old = loadSigningKey(path.join(dir, 'old.pem'), { create: true });
    const stranger = loadSigningKey(path.join(dir, 'stranger.pem'), { create: true });
    loadSigningKey(file, { create: true });
    writeFileSync(`${file}.retired.pem`, old.publicKeyPem, { mode: 0o644 }); // public keys: anyone may read them
    const key = loadSigningKey(file, { create: false });
    expect(key.retired.map((k) => k.fingerprint)).toEqual([old.fingerprint]);
    expect(trustedKeysOf(key).map((k) => k.fingerprint)).toEqual([key.fingerprint, old.fingerprint]);
    const digest = 'ab'.repeat(32);
    const byOld = { signature: old.sign(Buffer.from(digest, 'hex')), fingerprint: old.fingerprint };
    expect(checkSigned((k) => verifyDigest(digest, byOld.signature, k), byOld, key).state).toBe('valid');
    const byStranger = { signature: stranger.sign(Buffer.from(digest, 'hex')), fingerprint: stranger.fingerprint };
    expect(checkSigned((k) => verifyDigest(digest, byStranger.signature, k), byStranger, key).state).toBe('other-key');
  });
});
