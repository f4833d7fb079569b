import { randomInt } from 'node:crypto';
import { QueryTypes, UniqueConstraintError, type Transaction } from 'sequelize';
import type { TUserRole } from '../../shared/communication';
import { recordAuditEvent, SYSTEM_ACTOR, type TActor } from '../audit';
import { User } from '../core/db/models/index';
import { AppError } from '../core/errors';
import { db } from '../core/db/db';
import { assertNoMatterLeftUnseen, restrictedMatters } from '../core/lockout-rules';
import { queryRows, sql } from '../core/sql';
import { clientOfThreadKey } from '../core/thread-key-sql';
import { visibleTo } from '../core/visibility';
import { announce, OWNERSHIP_PAYLOAD } from '../events';
import { assertKeepsUnscreenedDirector, assertMayManageAccounts, lockMattersOf } from './account-rules';
import { hashPassword } from './password';
import { endWatchedSessionIds } from './session-watch';

export type TUserDto = { id: number; name: string; email: string; role: TUserRole; createdAt: Date; deactivatedAt: Date | null };

function userDtoOf(user: User): TUserDto {
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    role: user.role,
    createdAt: user.createdAt,
    deactivatedAt: user.deactivatedAt ?? null,
  };
}

/** Creates an account; recorded in the audit trail (`user.add`) with the same transaction. */
export async function createUser(input: { email: string; name: string; role: TUserRole; password: string }, actor: TActor = SYSTEM_ACTOR) {
  const passwordHash = await hashPassword(input.password);
  const email = input.email.trim().toLowerCase();
  try {
    return await db().transaction(async (transaction) => {
      if (actor.userId !== null) await lockUsersForChange(actor.userId, actor, transaction, { manage: true });
      const user = await User.create({ email, name: input.name.trim(), role: input.role, passwordHash }, { transaction });
      await recordAuditEvent(
        { actor, action: 'user.add', subject: `user:${user.id}`, detail: { email: user.email, role: user.role } },
        transaction,
      );
      return user;
    });
  } catch (error) {
    if (error instanceof UniqueConstraintError) {
      // Deactivated people cannot sign in: saying "someone signs in with it" would send a director hunting.
      const existing = await User.findOne({ where: { email }, attributes: ['deactivatedAt'] });
      if (existing?.deactivatedAt) {
        throw new AppError('CONFLICT', `The email ${email} belongs to a deactivated account: reactivate it instead.`, {
          email: ['This email belongs to a deactivated account: reactivate it instead.'],
        });
      }
      throw new AppError('CONFLICT', `A user with email ${email} already exists.`, {
        email: ['Someone already signs in with this email.'],
      });
    }
    throw error;
  }
}

export async function listUsers(): Promise<TUserDto[]> {
  const rows = await User.findAll({
    order: [
      ['name', 'ASC'],
      ['id', 'ASC'],
    ],
  });
  return rows.map(userDtoOf);
}

// No look-alikes (0/O, 1/l/I): a password read off the screen and typed once by someone else.
const PASSWORD_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/** A first password a director hands over: 4 groups of 4 (about 79 bits), shown once, never stored in clear. */
export function generateInitialPassword(): string {
  const groups = Array.from({ length: 4 }, () =>
    Array.from({ length: 4 }, () => PASSWORD_ALPHABET[randomInt(PASSWORD_ALPHABET.length)]).join(''),
  );
  return groups.join('-');
}

/**
 * A director adds someone. No email is sent: the director sets the first password, or the server
 * makes one and returns it this once (`generatedPassword`).
 */
export async function addUser(
  input: { email: string; name: string; role: TUserRole; password?: string },
  actor: TActor,
): Promise<{ user: TUserDto; generatedPassword: string | null }> {
  const generatedPassword = input.password === undefined ? generateInitialPassword() : null;
  const user = await createUser({ ...input, password: input.password ?? generatedPassword! }, actor);
  return { user: userDtoOf(user), generatedPassword };
}

type TLockedUser = { id: number; name: string; role: TUserRole; deactivatedAt: Date | null };
type TLockedUsers = { target: TLockedUser; activeDirectors: number };
/** `manage`: the change gives someone an account, a role or their sign-in back (account-rules.ts). */
type TLockOptions = { manage: boolean };

/**
 * Locks the user being changed, the acting director and every active director, in id order (one
 * order for every caller: no deadlock), then checks the actor again. The session check ran before
 * the lock: two directors demoting or deactivating each other at the same moment both pass it, and
 * without this the second would act after the first had taken their rights away. Taken one after
 * the other, the second sees the first's change and is refused, and the firm can never be left
 * without an active director.
 */
async function lockUsersForChange(userId: number, actor: TActor, transaction: Transaction, options: TLockOptions): Promise<TLockedUsers> {
  const rows = await db().query<{ id: number; name: string; role: TUserRole; deactivated_at: Date | null }>(
    `SELECT id, name, role, deactivated_at FROM users
     WHERE id = $1 OR id = $2 OR (role = 'director' AND deactivated_at IS NULL)
     ORDER BY id FOR UPDATE`,
    { bind: [userId, actor.userId], type: QueryTypes.SELECT, transaction },
  );
  // A null actor is the server itself (a script), which no director can take rights from.
  if (actor.userId !== null) {
    const acting = rows.find((row) => row.id === actor.userId);
    if (!acting || acting.deactivated_at) throw new AppError('FORBIDDEN', 'You were deactivated a moment ago: this change was not made.');
    if (acting.role !== 'director') throw new AppError('FORBIDDEN', 'You are no longer a director: this change was not made.');
    if (options.manage) await assertMayManageAccounts(actor, transaction);
  }
  const target = rows.find((row) => row.id === userId);
  if (!target) throw new AppError('NOT_FOUND', 'That user does not exist.');
  return {
    target: { id: target.id, name: target.name, role: target.role, deactivatedAt: target.deactivated_at },
    activeDirectors: rows.filter((row) => row.role === 'director' && row.deactivated_at === null).length,
  };
}

/** Takes effect on the user's next request: every request reads the user afresh from its session. */
export async function changeUserRole(input: { userId: number; role: TUserRole }, actor: TActor): Promise<TUserDto> {
  await db().transaction(async (transaction) => {
    const { target, activeDirectors } = await lockUsersForChange(input.userId, actor, transaction, { manage: true });
    if (target.deactivatedAt) throw new AppError('PRECONDITION_FAILED', `${target.name} is deactivated: their role cannot be changed.`);
    if (target.role === input.role) return;
    if (target.role === 'director' && activeDirectors <= 1) {
      throw new AppError('PRECONDITION_FAILED', `${target.name} is the firm's only active director: make someone else a director first.`, {
        role: ['The firm needs at least one active director.'],
      });
    }
    await assertKeepsUnscreenedDirector(target, `Making ${target.name} staff`, transaction);
    await User.update({ role: input.role }, { where: { id: target.id }, transaction });
    await recordAuditEvent(
      { actor, action: 'user.role_change', subject: `user:${target.id}`, detail: { from: target.role, to: input.role } },
      transaction,
    );
  });
  return userDtoOf((await User.findByPk(input.userId))!);
}

/**
 * The user can no longer sign in, and is signed out everywhere at once: their session rows go in
 * the same transaction (every request and the other instances' stream checks read those), and this
 * instance's open live streams end as soon as it commits.
 */
export async function deactivateUser(input: { userId: number }, actor: TActor): Promise<TUserDto> {
  const ended = await db().transaction(async (transaction) => {
    // Deactivating takes nobody across a wall, so a screened director may still do it (account-rules.ts).
    const { target, activeDirectors } = await lockUsersForChange(input.userId, actor, transaction, { manage: false });
    if (target.id === actor.userId)
      throw new AppError('PRECONDITION_FAILED', 'You cannot deactivate your own account: ask another director to do it.');
    if (target.deactivatedAt) return []; // already done (a double click, two directors at once)
    if (target.role === 'director' && activeDirectors <= 1) {
      throw new AppError('PRECONDITION_FAILED', `${target.name} is the firm's only active director: make someone else a director first.`);
    }
    const doing = `Deactivating ${target.name}`;
    await assertKeepsUnscreenedDirector(target, doing, transaction);
    await lockMattersOf(target.id, transaction);
    const viewer = { id: actor.userId ?? 0 };
    const mattersBefore = await restrictedMatters(viewer, transaction);
    await db().query('UPDATE users SET deactivated_at = now(), updated_at = now() WHERE id = $1', {
      bind: [target.id],
      transaction,
    });
    await assertNoMatterLeftUnseen(viewer, mattersBefore, doing, transaction);
    const sessions = await db().query<{ id: string }>('DELETE FROM sessions WHERE user_id = $1 RETURNING id', {
      bind: [target.id],
      type: QueryTypes.SELECT,
      transaction,
    });
    // What they held goes back to the team (server/ownership/README.md "Ownership"): their conversations to Unassigned,
    // and clients they were responsible for to nobody, so no new conversation waits on them. The trail
    // counts only what the acting director may see: a count of walled conversations tells of them.
    const [released] = await queryRows<{ conversations: number; clients: number; any: boolean }>(
      sql`WITH released_conversations AS (UPDATE conversation_states SET assignee_id = NULL, updated_at = now() WHERE assignee_id = ${target.id} RETURNING thread_key),
            released_clients AS (UPDATE clients SET responsible_user_id = NULL, updated_at = now() WHERE responsible_user_id = ${target.id} RETURNING id)
       SELECT (SELECT count(*) FROM released_conversations s WHERE ${visibleTo(viewer, clientOfThreadKey(sql`s.thread_key`), null)})::int AS conversations,
              (SELECT count(*) FROM released_clients c WHERE ${visibleTo(viewer, sql`c.id`, null)})::int AS clients,
              EXISTS (SELECT 1 FROM released_conversations) AS any`,
      { transaction },
    );
    if (released?.any) await announce(OWNERSHIP_PAYLOAD, transaction);
    await recordAuditEvent(
      {
        actor,
        action: 'user.deactivate',
        subject: `user:${target.id}`,
        detail: {
          role: target.role,
          sessionsEnded: sessions.length,
          ...(released?.conversations ? { conversationsUnassigned: released.conversations } : {}),
          ...(released?.clients ? { clientsNoLongerResponsible: released.clients } : {}),
        },
      },
      transaction,
    );
    return sessions.map((session) => session.id);
  });
  endWatchedSessionIds(ended);
  return userDtoOf((await User.findByPk(input.userId))!);
}

/**
 * Undoes a deactivation: the person signs in again with the password they had (they were signed
 * out, not forgotten), in the role they had. Recorded as `user.reactivate`.
 */
export async function reactivateUser(input: { userId: number }, actor: TActor): Promise<TUserDto> {
  await db().transaction(async (transaction) => {
    const { target } = await lockUsersForChange(input.userId, actor, transaction, { manage: true });
    if (!target.deactivatedAt) return; // already active (a double click, two directors at once)
    await db().query('UPDATE users SET deactivated_at = NULL, updated_at = now() WHERE id = $1', {
      bind: [target.id],
      transaction,
    });
    await recordAuditEvent({ actor, action: 'user.reactivate', subject: `user:${target.id}`, detail: { role: target.role } }, transaction);
  });
  return userDtoOf((await User.findByPk(input.userId))!);
}
