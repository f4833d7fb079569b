import { setPasswordHashCost } from '../../server/auth/password';
import { TEST_HASH_COST } from './hash-cost';

// Every integration file makes its accounts at a cheap scrypt cost, so its sign-ins do not each
// take ~100 ms of a core. The production cost is held by tests/unit/password.test.ts and by the
// files that flood the hashing queue, which put it back (useProductionHashCost).
setPasswordHashCost(TEST_HASH_COST);
