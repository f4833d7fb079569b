import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fingerprintOf, loadSigningKey, verifySignature } from '../../server/signing';

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
});
