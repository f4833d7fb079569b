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

function tooMany(seconds: number): AppError {
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  return new AppError('TOO_MANY_REQUESTS', `Too many sign-in attempts. Wait ${minutes} minute${minutes === 1 ? '' : 's'} and try again.`);
}

/** Failed sign-ins counted per IP and per account in PostgreSQL, so the limits hold across instances. */
export class SignInLimiter {
  private readonly perIp: RateLimiterPostgres;
  private readonly perAccount: RateLimiterPostgres;

  constructor(sequelize: Sequelize, limits: TSignInLimits = DEFAULT_SIGN_IN_LIMITS) {
    const common = { storeClient: sequelize, storeType: 'sequelize', tableName: 'rate_limits', tableCreated: true, clearExpiredByTimeout: false, duration: WINDOW_SECONDS, blockDuration: WINDOW_SECONDS };
    this.perIp = new RateLimiterPostgres({ ...common, keyPrefix: 'signin_ip', points: limits.perIp });
    this.perAccount = new RateLimiterPostgres({ ...common, keyPrefix: 'signin_account', points: limits.perAccount });
  }

  /** Throws TOO_MANY_REQUESTS while the IP or the account is over its limit. */
  async assertAllowed(ip: string, email: string): Promise<void> {
    const [byIp, byAccount] = await Promise.all([this.perIp.get(ip), this.perAccount.get(accountKey(email))]);
    for (const res of [byIp, byAccount]) {
      if (res && res.remainingPoints <= 0) throw tooMany(res.msBeforeNext / 1000);
    }
  }

  async recordFailure(ip: string, email: string): Promise<void> {
    await Promise.all([this.perIp.consume(ip), this.perAccount.consume(accountKey(email))].map((p) => p.catch((e: unknown) => {
      if (!(e instanceof RateLimiterRes)) throw e; // over the limit is expected here; store errors are not
    })));
  }

  async recordSuccess(email: string): Promise<void> {
    await this.perAccount.delete(accountKey(email));
  }
}
