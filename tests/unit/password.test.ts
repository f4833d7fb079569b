import { describe, expect, it } from 'vitest';
import { availableParallelism } from 'node:os';
import {
  getDummyHash,
  HashingBusyError,
  hashPassword,
  PASSWORD_HASH_COST,
  setPasswordHashCost,
  verifyPassword,
} from '../../server/auth/password';

describe('password hashing', () => {
  it('stores a salted scrypt hash, never the password', async () => {
    const a = await hashPassword('correct horse battery');
    const b = await hashPassword('correct horse battery');
    expect(a).toMatch(/^scrypt\$32768\$8\$3\$/);
    expect(a).not.toContain('correct horse');
    expect(a).not.toBe(b);
  }, 30_000); // production-cost hashes: ~100 ms each alone, seconds when a busy machine shares its cores

  it('verifies the right password and refuses a wrong or malformed one', async () => {
    const stored = await hashPassword('correct horse battery');
    expect(await verifyPassword('correct horse battery', stored)).toBe(true);
    expect(await verifyPassword('correct horse batterz', stored)).toBe(false);
    expect(await verifyPassword('anything', 'plain-text')).toBe(false);
  }, 30_000);

  it('makes new hashes at the cost set for the process (tests lower it), and checks each hash at the cost written in it', async () => {
    const strong = await hashPassword('correct horse battery');
    setPasswordHashCost({ N: 1024, r: 8, p: 1 });
    try {
      const cheap = await hashPassword('correct horse battery');
      expect(cheap).toMatch(/^scrypt\$1024\$8\$1\$/);
      expect(await verifyPassword('correct horse battery', strong)).toBe(true);
      expect(await verifyPassword('correct horse battery', cheap)).toBe(true);
      expect(await verifyPassword('correct horse batterz', cheap)).toBe(false);
      // An unknown email is checked against a hash of the same cost as a real one.
      expect(await getDummyHash()).toMatch(/^scrypt\$1024\$8\$1\$/);
    } finally {
      setPasswordHashCost(PASSWORD_HASH_COST);
    }
    expect(await hashPassword('correct horse battery')).toMatch(/^scrypt\$32768\$8\$3\$/);
  }, 30_000);

  it('refuses a cost scrypt cannot use', () => {
    expect(() => setPasswordHashCost({ N: 1000, r: 8, p: 1 })).toThrow(RangeError);
    expect(() => setPasswordHashCost({ N: 1024, r: 0, p: 1 })).toThrow(RangeError);
  });

  it('a dummy hash refused while the queue was full is made again later, not kept as a failure', async () => {
    // Fill every slot and the waiting line, so the first dummy hash is refused as busy.
    const flood = Array.from({ length: Math.max(1, availableParallelism() - 1) + 16 }, () => hashPassword('flood').catch(() => 'busy'));
    await expect(getDummyHash()).rejects.toBeInstanceOf(HashingBusyError);
    await Promise.all(flood);
    expect(await getDummyHash()).toMatch(/^scrypt\$/);
  }, 60_000);
});
