import type { SIGN_IN_REFUSALS } from '../../shared/audit/audit-details';
import { recordAuditEvent } from '../audit';
import { User } from '../core/db/models/index';
import { AppError } from '../core/errors';
import type { TSessionUser } from '../core/session-user';
import { verifyPasskeyAssertion } from './passkey-assertion';
import { useRecoveryCode } from './recovery-codes';
import type { TSecondFactorKeys } from './second-factor-keys';
import type { SignInLimiter } from './sign-in-limiter';
import { claimTicketAnswer, takeTicket } from './sign-in-ticket';
import { checkTotpCode } from './totp';

// The second step of a two-step sign-in (server/auth/README.md "Two-step sign-in"): a live ticket
// and one answer. Each answer is counted twice before it is checked: against its ticket (5 at most)
// and by the limiter, per person and per address, across tickets, as passwords are.

/** One proof of a second factor: a code from the authenticator app, a recovery code, or a passkey's answer. */
export type TFactorAnswer = { code: string } | { recoveryCode: string } | { passkey: unknown };
export type TSecondStepAnswer = { ticket: string } & TFactorAnswer;
export type TSecondStepMethod = 'totp' | 'recovery_code' | 'passkey';
export type TRefusal = Extract<(typeof SIGN_IN_REFUSALS)[number], 'wrong_code' | 'replayed_code' | 'wrong_recovery_code' | 'wrong_passkey'>;

const DEAD_TICKET = 'This sign-in has expired or was already used. Sign in again.';
export const REFUSED: Record<TRefusal, string> = {
  wrong_code: 'That code is not right. Check your authenticator app and try again.',
  replayed_code: 'That code has already been used. Wait for the next code and enter it.',
  wrong_recovery_code: 'That recovery code is not right, or it has already been used.',
  wrong_passkey: 'The passkey could not be verified. Try again.',
};

export type TSecondStepDeps = { limiter: SignInLimiter; keys: () => TSecondFactorKeys; now: Date; ip: string };

/** Checks one answer for `userId` (a used recovery code or passkey challenge is spent either way); also step-up's check. */
export async function checkFactorAnswer(
  answer: TFactorAnswer,
  userId: number,
  deps: Pick<TSecondStepDeps, 'keys' | 'now'>,
): Promise<{ method: TSecondStepMethod; refusal: TRefusal | null }> {
  if ('code' in answer) {
    const result = await checkTotpCode(userId, answer.code, deps.keys(), deps.now, { confirmed: true });
    return { method: 'totp', refusal: result === 'accepted' ? null : result === 'replayed' ? 'replayed_code' : 'wrong_code' };
  }
  if ('recoveryCode' in answer) {
    const ok = await useRecoveryCode(userId, answer.recoveryCode, deps.keys(), deps.now);
    return { method: 'recovery_code', refusal: ok ? null : 'wrong_recovery_code' };
  }
  const ok = await verifyPasskeyAssertion(answer.passkey, userId, deps.now).then(
    () => true,
    (error: unknown) => {
      if (error instanceof AppError && error.code === 'UNAUTHORIZED') return false;
      throw error;
    },
  );
  return { method: 'passkey', refusal: ok ? null : 'wrong_passkey' };
}

/** The person the ticket's answer proves, and how; throws UNAUTHORIZED (or TOO_MANY_REQUESTS) otherwise. */
export async function completeSecondStep(
  answer: TSecondStepAnswer,
  deps: TSecondStepDeps,
): Promise<{ user: TSessionUser; method: TSecondStepMethod }> {
  const claim = await claimTicketAnswer(answer.ticket, deps.now);
  if (!claim) throw new AppError('UNAUTHORIZED', DEAD_TICKET);
  const user = await User.findByPk(claim.userId);
  if (!user || user.deactivatedAt) {
    await takeTicket(answer.ticket);
    throw new AppError('UNAUTHORIZED', DEAD_TICKET);
  }
  await deps.limiter.consumeSecondStep(deps.ip, user.id, user.email);
  const { method, refusal } = await checkFactorAnswer(answer, user.id, deps);
  if (refusal) {
    await recordAuditEvent({
      actor: { userId: null, ip: deps.ip },
      action: 'auth.sign_in_failed',
      subject: `email:${user.email}`,
      detail: { email: user.email, reason: refusal },
    });
    throw new AppError('UNAUTHORIZED', REFUSED[refusal]);
  }
  // Taken only now: a wrong answer leaves the ticket for another try (up to its 5).
  if (!(await takeTicket(answer.ticket))) throw new AppError('UNAUTHORIZED', DEAD_TICKET);
  await deps.limiter.recordSecondStepSuccess(deps.ip, user.id);
  return { user: { id: user.id, name: user.name, email: user.email, role: user.role }, method };
}
