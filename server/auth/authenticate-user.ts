import { User } from '../core/db/models/index';
import { AppError } from '../core/errors';
import type { TSessionUser } from '../core/session-user';
import { getDummyHash, verifyPassword } from './password';

// One message for unknown email and wrong password alike: no user enumeration.
const BAD_CREDENTIALS = 'Email or password is incorrect.';
// Said only to someone who gave the right password: it tells them nothing they could not guess.
const DEACTIVATED = 'This account has been deactivated. Ask a director of the firm if you need access again.';

/** Why a sign-in was refused: for the trail's readers (directors) only, never in the answer. */
export type TSignInRefusal = 'unknown_email' | 'wrong_password' | 'deactivated';

/** The refusal the person is shown (one message for unknown email and wrong password), with its true reason beside it for the trail. */
export class SignInRefused extends AppError {
  constructor(
    message: string,
    readonly reason: TSignInRefusal,
  ) {
    super('UNAUTHORIZED', message);
  }
}

export async function authenticateUser(email: string, password: string): Promise<TSessionUser> {
  const user = await User.findOne({ where: { email: email.trim().toLowerCase() } });
  const ok = await verifyPassword(password, user?.passwordHash ?? (await getDummyHash()));
  if (!user) throw new SignInRefused(BAD_CREDENTIALS, 'unknown_email');
  if (!ok) throw new SignInRefused(BAD_CREDENTIALS, 'wrong_password');
  if (user.deactivatedAt) throw new SignInRefused(DEACTIVATED, 'deactivated');
  return { id: user.id, name: user.name, email: user.email, role: user.role };
}
