import { describe, expect, it } from 'vitest';
import { availableParallelism } from 'node:os';
import { getDummyHash, HashingBusyError, hashPassword, verifyPassword } from '../../server/auth/password';

describe('password hashing', () => {
  it('stores a salted scrypt hash, never the password', async () => {
    const a = await hashPassword('correct horse battery');
    const b = await hashPassword('correct horse battery');
    expect(a).toMatch(/^scrypt\$32768\$8\$3\$/);
    expect(a).not.toContain('correct horse');
    expect(a).not.toBe(b);
  });

  it('verifies the right password and refuses a wrong or malformed one', async () => {
    const stored = await hashPassword('correct horse battery');
    expect(await verifyPassword('correct horse battery', stored)).toBe(true);
    expect(await verifyPassword('correct horse batterz', stored)).toBe(false);
    expect(await verifyPassword('anything', 'plain-text')).toBe(false);
  });

  it('a dummy hash refused while the queue was full is made again later, not kept as a failure', async () => {
    // Fill every slot and the waiting line, so the first dummy hash is refused as busy.
    const flood = Array.from({ length: Math.max(1, availableParallelism() - 1) + 16 }, () => hashPassword('flood').catch(() => 'busy'));
    await expect(getDummyHash()).rejects.toBeInstanceOf(HashingBusyError);
    await Promise.all(flood);
    expect(await getDummyHash()).toMatch(/^scrypt\$/);
  }, 60_000);
});
