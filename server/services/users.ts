import { UniqueConstraintError } from 'sequelize';
import type { TUserRole } from '../../shared/communication';
import { hashPassword } from '../auth/password';
import { User } from '../db/models';
import { AppError } from '../errors';

export async function createUser(input: { email: string; name: string; role: TUserRole; password: string }) {
  try {
    return await User.create({
      email: input.email.trim().toLowerCase(),
      name: input.name.trim(),
      role: input.role,
      passwordHash: await hashPassword(input.password),
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
