import { User } from '../core/db/models/index';
import { AppError } from '../core/errors';
import type { TSessionUser } from './session-user';
import { getDummyHash, verifyPassword } from './password';

// One message for unknown email and wrong password alike: no user enumeration.
const BAD_CREDENTIALS = 'Email or password is incorrect.';
// Said only to someone who gave the right password: it tells them nothing they could not guess.
const DEACTIVATED = 'This account has been deactivated. Ask a director of the firm if you need access again.';

export async function authenticateUser(email: string, password: string): Promise<TSessionUser> {
  const user = await User.findOne({ where: { email: email.trim().toLowerCase() } });
  const ok = await verifyPassword(password, user?.passwordHash ?? (await getDummyHash()));
  if (!user || !ok) throw new AppError('UNAUTHORIZED', BAD_CREDENTIALS);
  if (user.deactivatedAt) throw new AppError('UNAUTHORIZED', DEACTIVATED);
  return { id: user.id, name: user.name, email: user.email, role: user.role };
}
