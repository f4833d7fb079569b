import { createHash } from 'node:crypto';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { escapeUnstorableCharacters } from '../../shared/visible-text';
import { recordAuditEvent } from '../audit';
import { AppError } from '../core/errors';
import { db } from '../core/db/db';

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

/**
 * A typed email as the trail keeps it: as the account is counted (trimmed, lower case), and only
 * what PostgreSQL cannot store (a NUL, half a surrogate pair) written as its code.
 */
export const formatEmailForTrail = (email: string) => escapeUnstorableCharacters(email.trim().toLowerCase().slice(0, 320));

/** A key that has just become limited: which one, its limit, and how long its block lasts. */
type TLimitedKey = { by: 'address' | 'account'; limit: number; msBeforeNext: number };

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
  private readonly codesPerAccount: RateLimiterPostgres;

  constructor(private readonly limits: TSignInLimits = DEFAULT_SIGN_IN_LIMITS) {
    const common = {
      storeClient: db(),
      storeType: 'sequelize',
      tableName: 'rate_limits',
      tableCreated: true,
      clearExpiredByTimeout: false,
      duration: WINDOW_SECONDS,
      blockDuration: WINDOW_SECONDS,
    };
    this.perIp = new RateLimiterPostgres({ ...common, keyPrefix: 'signin_ip', points: limits.perIp });
    this.perAccount = new RateLimiterPostgres({ ...common, keyPrefix: 'signin_account', points: limits.perAccount });
    // Second-step answers (codes, recovery codes, passkeys) per person, under a key of their own: a
    // right password clears the password count, and must not hand out fresh guesses at the code.
    this.codesPerAccount = new RateLimiterPostgres({ ...common, keyPrefix: 'signin_code_account', points: limits.perAccount });
  }

  /**
   * Counts one attempt for the IP and the account; throws TOO_MANY_REQUESTS when either is over its
   * limit. The attempt that makes a key limited is written to the audit trail, once per burst.
   */
  async consume(ip: string, email: string): Promise<void> {
    await this.consumeBoth(this.perAccount, accountKey(email), ip, email);
  }

  /**
   * Counts one answer to a sign-in's second step, before it is checked: per address (with passwords,
   * so the two share the address's limit) and per person (`userId`; `email` only names them in the trail).
   */
  async consumeSecondStep(ip: string, userId: number, email: string): Promise<void> {
    await this.consumeBoth(this.codesPerAccount, String(userId), ip, email);
  }

  /** A completed second step: the person's count is cleared, the address given back one, as for a password. */
  async recordSecondStepSuccess(ip: string, userId: number): Promise<void> {
    await Promise.all([this.codesPerAccount.delete(String(userId)), this.perIp.reward(ipKey(ip), 1)]);
  }

  private async consumeBoth(perAccount: RateLimiterPostgres, account: string, ip: string, email: string): Promise<void> {
    const results = await Promise.allSettled([this.perIp.consume(ipKey(ip)), perAccount.consume(account)]);
    let waitMs = 0;
    const limited: TLimitedKey[] = [];
    for (const [index, result] of results.entries()) {
      if (result.status === 'fulfilled') continue;
      if (!(result.reason instanceof RateLimiterRes)) throw result.reason; // a store error is not a "no"
      waitMs = Math.max(waitMs, result.reason.msBeforeNext);
      const by = index === 0 ? 'address' : 'account';
      // The count is one atomic upsert per attempt, so exactly one attempt of a burst sees the
      // first point over the limit, however many arrive at once; the refusals after it, until the
      // block runs out, see more. The trail is append-only, so a burst is this one row (with how
      // long the block lasts), not a row per refusal nor a count kept up to date.
      const limit = by === 'address' ? this.limits.perIp : this.limits.perAccount;
      if (result.reason.consumedPoints === limit + 1) limited.push({ by, limit, msBeforeNext: result.reason.msBeforeNext });
    }
    for (const key of limited) await this.recordLimited(key, ip, email);
    if (waitMs > 0) throw tooMany(waitMs / 1000);
  }

  private async recordLimited(key: TLimitedKey, ip: string, email: string): Promise<void> {
    const counted = key.by === 'address' ? { address: ipKey(ip) } : { email: formatEmailForTrail(email) };
    await recordAuditEvent({
      actor: { userId: null, ip },
      action: 'auth.sign_in_limited',
      subject: key.by === 'address' ? `ip:${counted.address}` : `email:${counted.email}`,
      detail: {
        limited: key.by,
        ...counted,
        attempts: key.limit,
        window_minutes: WINDOW_SECONDS / 60,
        blocked_until: new Date(Date.now() + key.msBeforeNext).toISOString(),
      },
    });
  }

  async recordSuccess(ip: string, email: string): Promise<void> {
    await Promise.all([this.perAccount.delete(accountKey(email)), this.perIp.reward(ipKey(ip), 1)]);
  }

  /**
   * Counts one attempt by address alone, for what names no account (an invitation link, a single
   * sign-on answer): the same budget and block as sign-in, so neither is a way around it.
   */
  async consumeAddress(ip: string): Promise<void> {
    try {
      await this.perIp.consume(ipKey(ip));
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      if (error.consumedPoints === this.limits.perIp + 1) {
        await this.recordLimited({ by: 'address', limit: this.limits.perIp, msBeforeNext: error.msBeforeNext }, ip, '');
      }
      throw tooMany(error.msBeforeNext / 1000);
    }
  }

  /** Gives an address's attempt back once it succeeded (as recordSuccess does for sign-in). */
  async rewardAddress(ip: string): Promise<void> {
    await this.perIp.reward(ipKey(ip), 1);
  }

  /** Gives back an attempt that was never checked (the server was too busy to hash it). */
  async refund(ip: string, email: string): Promise<void> {
    await Promise.all([this.perIp.reward(ipKey(ip), 1), this.perAccount.reward(accountKey(email), 1)]);
  }
}
