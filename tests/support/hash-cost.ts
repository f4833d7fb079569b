import { afterAll, beforeAll } from 'vitest';
import { PASSWORD_HASH_COST, setPasswordHashCost } from '../../server/auth/password';

/**
 * The scrypt cost integration tests make accounts with (tests/support/integration-setup.ts): ~1 MiB
 * and a few ms a hash instead of 32 MiB and ~100 ms. A sign-in checks at the cost its hash was made with.
 */
export const TEST_HASH_COST = { N: 1024, r: 8, p: 1 };

/**
 * The suite's hashes at the production cost: for tests of what a flood of ~100 ms hashes does to
 * the hashing queue, which cheap hashes would never fill. Call it inside a describe.
 */
export function useProductionHashCost(): void {
  beforeAll(() => setPasswordHashCost(PASSWORD_HASH_COST));
  afterAll(() => setPasswordHashCost(TEST_HASH_COST));
}
