import { createHash } from 'node:crypto';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Sequelize } from 'sequelize';
import { AppError } from '../errors';

const WINDOW_SECONDS = 15 * 60;

export type TSignInLimits = { perIp: number; perAccount: number };
export const DEFAULT_SIGN_IN_LIMITS: TSignInLimits = { perIp: 30, perAccount: 8 };

// Accounts are keyed by a hash of the typed email, whether or not such a user exists, so the
// limiter answers the same for real and made-up accounts (no enumeration) and stores no emails.
const accountKey = (email: string) => createHash('sha256').update(email.trim().toLowerCase()).digest('hex');

/**
 * The key an address is counted under: an IPv6 address by its /64 (one subscriber is usually given
 * a whole /64, so counting single addresses would hand an attacker unlimited keys).
 */
export function ipKey(ip: string): string {
  const address = ip.replace(/%.*$/, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!address.includes(':')) return address;
  const [head = '', tail = ''] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = address.includes('::') && tail ? tail.split(':') : [];
  const groups = address.includes('::')
    ? [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => (Number.parseInt(g || '0', 16) || 0).toString(16))
    .join(':')}::/64`;
}

function tooMany(seconds: number): AppError {
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  return new AppError('TOO_MANY_REQUESTS', `Too many sign-in attempts. Wait ${minutes} minute${minutes === 1 ? '' : 's'} and try again.`);
}

/**
 * Sign-in attempts counted per IP and per account in PostgreSQL, so the limits hold across
 * instances. An attempt is counted atomically *before* its password is checked (one upsert per
 * key): parallel or batched guesses cannot all pass a check made before any of them was recorded.
 * A successful sign-in gives its points back, so an office behind one address is not locked out
 * by its own staff signing in.
 */
export class SignInLimiter {
  private readonly perIp: RateLimiterPostgres;
  private readonly perAccount: RateLimiterPostgres;

  constructor(sequelize: Sequelize, limits: TSignInLimits = DEFAULT_SIGN_IN_LIMITS) {
    const common = {
      storeClient: sequelize,
      storeType: 'sequelize',
      tableName: 'rate_limits',
      tableCreated: true,
      clearExpiredByTimeout: false,
      duration: WINDOW_SECONDS,
      blockDuration: WINDOW_SECONDS,
    };
    this.perIp = new RateLimiterPostgres({ ...common, keyPrefix: 'signin_ip', points: limits.perIp });
    this.perAccount = new RateLimiterPostgres({ ...common, keyPrefix: 'signin_account', points: limits.perAccount });
  }

  /** Counts one attempt for the IP and the account; throws TOO_MANY_REQUESTS when either is over its limit. */
  async consume(ip: string, email: string): Promise<void> {
    const results = await Promise.allSettled([this.perIp.consume(ipKey(ip)), this.perAccount.consume(accountKey(email))]);
    let waitMs = 0;
    for (const result of results) {
      if (result.status === 'fulfilled') continue;
      if (!(result.reason instanceof RateLimiterRes)) throw result.reason; // a store error is not a "no"
      waitMs = Math.max(waitMs, result.reason.msBeforeNext);
    }
    if (waitMs > 0) throw tooMany(waitMs / 1000);
  }

  async recordSuccess(ip: string, email: string): Promise<void> {
    await Promise.all([this.perAccount.delete(accountKey(email)), this.perIp.reward(ipKey(ip), 1)]);
  }

  /** Gives back an attempt that was never checked (the server was too busy to hash it). */
  async refund(ip: string, email: string): Promise<void> {
    await Promise.all([this.perIp.reward(ipKey(ip), 1), this.perAccount.reward(accountKey(email), 1)]);
  }
}
