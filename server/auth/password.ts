import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { AppError } from '../core/errors';

// scrypt with one of OWASP's listed minimum settings (N=2^15, r=8, p=3: 32 MiB per hash).
export const PASSWORD_HASH_COST: Readonly<THashCost> = Object.freeze({ N: 32768, r: 8, p: 3 });
const KEY_LENGTH = 32;

export type THashCost = { N: number; r: number; p: number };
let cost: Readonly<THashCost> = PASSWORD_HASH_COST;
// Checked when the email is unknown, so a wrong email costs the same time as a wrong password.
let dummyHash: Promise<string> | undefined;

/**
 * The cost new hashes are made with, for this process (PASSWORD_HASH_COST unless changed). Tests
 * lower it so the hundreds of accounts they make and sign in with do not each spend ~100 ms of a
 * core; a hash is always checked at the cost written in it, whatever this is.
 */
export function setPasswordHashCost(next: THashCost): void {
  if (!Number.isInteger(Math.log2(next.N)) || next.N < 2 || next.r < 1 || next.p < 1) {
    throw new RangeError('scrypt cost needs N a power of two above 1, r and p of at least 1');
  }
  cost = Object.freeze({ ...next });
  dummyHash = undefined; // an unknown email must cost what a wrong password costs: at the new cost too
}

// Each hash takes ~100 ms of a core and 32 MiB. One core's worth at a time (leaving a core for
// everything else on a small machine) and a short queue: a flood of sign-ins is told to come back
// rather than holding every other request up.
const MAX_HASHING = Math.max(1, availableParallelism() - 1);
const MAX_WAITING = 16;

/** The hashing queue is full: nothing was checked, so the attempt must not count against anyone. */
export class HashingBusyError extends AppError {
  constructor(message: string) {
    super('TOO_MANY_REQUESTS', message);
  }
}
// One queue for sign-ins (checking) and new accounts (hashing): each is told in its own words.
const BUSY_CHECKING = 'The server is busy checking sign-ins. Try again in a moment.';
const BUSY_HASHING = 'The server is busy: try again in a moment.';
let hashing = 0;
const waiting: (() => void)[] = [];

async function withHashingSlot<T>(work: () => Promise<T>, busyMessage: string): Promise<T> {
  if (hashing < MAX_HASHING) hashing++;
  else {
    if (waiting.length >= MAX_WAITING) throw new HashingBusyError(busyMessage);
    await new Promise<void>((resolve) => waiting.push(resolve)); // the slot is handed over by the one finishing
  }
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else hashing--;
  }
}

function derive(password: string, salt: Buffer, params: ScryptOptions, busyMessage: string): Promise<Buffer> {
  return withHashingSlot(
    () =>
      new Promise((resolve, reject) =>
        scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, { ...params, maxmem: 64 * 1024 * 1024 }, (err, key) =>
          err ? reject(err) : resolve(key),
        ),
      ),
    busyMessage,
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const params = cost;
  const key = await derive(password, salt, params, BUSY_HASHING);
  return `scrypt$${params.N}$${params.r}$${params.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const key = await derive(password, Buffer.from(salt, 'base64'), { N: Number(n), r: Number(r), p: Number(p) }, BUSY_CHECKING);
  return key.length === expected.length && timingSafeEqual(key, expected);
}

export function getDummyHash(): Promise<string> {
  // A failed attempt (the hashing queue was full) is not kept: the next sign-in makes it again.
  dummyHash ??= hashPassword(randomBytes(16).toString('hex')).catch((error: unknown) => {
    dummyHash = undefined;
    throw error;
  });
  return dummyHash;
}
