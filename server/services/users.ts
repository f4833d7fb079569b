import { UniqueConstraintError } from 'sequelize';
import type { TUserRole } from '../../shared/communication';
import { recordAuditEvent, SYSTEM_ACTOR, type TActor } from '../audit/record-audit-event';
import { hashPassword } from '../auth/password';
import { User } from '../db/models';
import { AppError } from '../errors';

/** Creates an account; recorded in the audit trail (`user.add`) with the same transaction. */
export async function createUser(input: { email: string; name: string; role: TUserRole; password: string }, actor: TActor = SYSTEM_ACTOR) {
  const passwordHash = await hashPassword(input.password);
  try {
    return await User.sequelize!.transaction(async (transaction) => {
      const user = await User.create({ email: input.email.trim().toLowerCase(), name: input.name.trim(), role: input.role, passwordHash }, { transaction });
      await recordAuditEvent(User.sequelize!, { actor, action: 'user.add', subject: `user:${user.id}`, detail: { email: user.email, role: user.role } }, transaction);
      return user;
    });
  } catch (error) {
    if (error instanceof UniqueConstraintError) throw new AppError('CONFLICT', `A user with email ${input.email} already exists.`);
    throw error;
  }
}

export type TUserDto = { id: number; name: string; email: string; role: TUserRole; createdAt: Date };

export async function listUsers(): Promise<TUserDto[]> {
  const rows = await User.findAll({ order: [['name', 'ASC']] });
  return rows.map((u) => ({ id: u.id, name: u.name, email: u.email, role: u.role, createdAt: u.createdAt }));
}
