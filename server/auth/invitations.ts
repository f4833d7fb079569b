import { createHash, randomBytes } from 'node:crypto';
import { UniqueConstraintError, type Transaction } from 'sequelize';
import type { TUserRole } from '../../shared/communication';
import { recordAuditEvent, type TActor } from '../audit';
import { User } from '../core/db/models/index';
import { db } from '../core/db/db';
import { AppError } from '../core/errors';
import { empty, queryRows, sql } from '../core/sql';
import { assertMayManageAccounts } from './account-rules';
import { hashPassword } from './password';

// A director invites; the person sets their own password through a one-time link (server/auth/README.md
// "Invitations"). The link's token is random and kept only as its SHA-256: nobody but the person
// holding the link can use it, and the director never learns a password.

export const INVITATION_TTL_MS = 72 * 60 * 60 * 1000;

/** One answer for an unknown, used, replaced or expired link: which one is nobody's business but the trail's. */
export const INVITATION_REFUSED =
  'This invitation link cannot be used: it was used already, has expired or was replaced. Ask a director for a new one.';

export type TInvitationDto = { id: number; email: string; name: string; role: TUserRole; createdAt: Date; expiresAt: Date };
type TInvitationRow = TInvitationDto & { acceptedAt: Date | null; revokedAt: Date | null; invitedBy: number | null };

const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

const INVITATION_COLUMNS = sql`id, email, name, role, created_at AS "createdAt", expires_at AS "expiresAt",
  accepted_at AS "acceptedAt", revoked_at AS "revokedAt", invited_by AS "invitedBy"`;

/** The acting director, locked and checked again inside the change (as users.ts does for its changes). */
async function lockActingDirector(actor: TActor, transaction: Transaction): Promise<void> {
  if (actor.userId === null) return;
  const [acting] = await queryRows<{ role: TUserRole; deactivated: boolean }>(
    sql`SELECT role, deactivated_at IS NOT NULL AS deactivated FROM users WHERE id = ${actor.userId} FOR UPDATE`,
    { transaction },
  );
  if (!acting || acting.deactivated) throw new AppError('FORBIDDEN', 'You were deactivated a moment ago: this change was not made.');
  if (acting.role !== 'director') throw new AppError('FORBIDDEN', 'You are no longer a director: this change was not made.');
  await assertMayManageAccounts(actor, transaction);
}

function emailTaken(email: string, deactivated: boolean): AppError {
  // The same words as users.add (users.ts): a deactivated account is reactivated, not invited again.
  return deactivated
    ? new AppError('CONFLICT', `The email ${email} belongs to a deactivated account: reactivate it instead.`, {
        email: ['This email belongs to a deactivated account: reactivate it instead.'],
      })
    : new AppError('CONFLICT', `A user with email ${email} already exists.`, { email: ['Someone already signs in with this email.'] });
}

/** A one-time link for the person; an earlier pending invitation for the same email is replaced. */
export async function inviteUser(
  input: { email: string; name: string; role: TUserRole },
  actor: TActor,
  now: Date,
): Promise<{ invitation: TInvitationDto; token: string }> {
  const email = input.email.trim().toLowerCase();
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + INVITATION_TTL_MS);
  return db().transaction(async (transaction) => {
    await lockActingDirector(actor, transaction);
    const existing = await User.findOne({ where: { email }, attributes: ['deactivatedAt'], transaction });
    if (existing) throw emailTaken(email, existing.deactivatedAt !== null);
    const replaced = await queryRows<{ id: number }>(
      sql`UPDATE invitations SET revoked_at = ${now} WHERE email = ${email} AND accepted_at IS NULL AND revoked_at IS NULL RETURNING id`,
      { transaction },
    );
    const [invitation] = await queryRows<TInvitationDto>(
      sql`INSERT INTO invitations (email, name, role, invited_by, token_hash, created_at, expires_at)
          VALUES (${email}, ${input.name.trim()}, ${input.role}, ${actor.userId}, ${tokenHash(token)}, ${now}, ${expiresAt})
          RETURNING id, email, name, role, created_at AS "createdAt", expires_at AS "expiresAt"`,
      { transaction },
    );
    await recordAuditEvent(
      {
        actor,
        action: 'user.invite',
        subject: `email:${email}`,
        detail: {
          invitationId: invitation!.id,
          name: invitation!.name,
          role: invitation!.role,
          expiresAt: expiresAt.toISOString(),
          ...(replaced.length ? { replaced: true as const } : {}),
        },
      },
      transaction,
    );
    return { invitation: invitation!, token };
  });
}

/** Invitations not yet used, withdrawn or expired, newest first (People lists them). */
export async function listPendingInvitations(now: Date): Promise<TInvitationDto[]> {
  return queryRows<TInvitationDto>(
    sql`SELECT id, email, name, role, created_at AS "createdAt", expires_at AS "expiresAt" FROM invitations
        WHERE accepted_at IS NULL AND revoked_at IS NULL AND expires_at > ${now} ORDER BY created_at DESC, id DESC`,
  );
}

/** Withdraws a pending invitation: its link stops working. Already used or withdrawn: nothing to do. */
export async function revokeInvitation(input: { id: number }, actor: TActor, now: Date): Promise<void> {
  await db().transaction(async (transaction) => {
    await lockActingDirector(actor, transaction);
    const [row] = await queryRows<{ email: string }>(
      sql`UPDATE invitations SET revoked_at = ${now} WHERE id = ${input.id} AND accepted_at IS NULL AND revoked_at IS NULL RETURNING email`,
      { transaction },
    );
    if (!row) return;
    await recordAuditEvent(
      { actor, action: 'user.invite_revoke', subject: `email:${row.email}`, detail: { invitationId: input.id } },
      transaction,
    );
  });
}

async function findUsable(token: string, now: Date, transaction?: Transaction): Promise<TInvitationRow> {
  const [row] = await queryRows<TInvitationRow>(
    sql`SELECT ${INVITATION_COLUMNS} FROM invitations WHERE token_hash = ${tokenHash(token)} ${transaction ? sql`FOR UPDATE` : empty}`,
    { transaction },
  );
  if (!row || row.acceptedAt || row.revokedAt || row.expiresAt <= now) throw new AppError('NOT_FOUND', INVITATION_REFUSED);
  return row;
}

/** Who the link is for, so the page can greet them; the same refusal as accepting. */
export async function readInvitation(token: string, now: Date): Promise<{ email: string; name: string; expiresAt: Date }> {
  const row = await findUsable(token, now);
  return { email: row.email, name: row.name, expiresAt: row.expiresAt };
}

/**
 * The person sets their password: their account is made, active, with the invitation's name, email and
 * role, and the link is spent in the same transaction (a second use finds it used).
 */
export async function acceptInvitation(
  input: { token: string; password: string },
  ip: string | null,
  now: Date,
): Promise<{ id: number; name: string; email: string; role: TUserRole }> {
  await findUsable(input.token, now); // no slow hash for a dead link
  const passwordHash = await hashPassword(input.password);
  try {
    return await db().transaction(async (transaction) => {
      const invitation = await findUsable(input.token, now, transaction);
      const user = await User.create(
        { email: invitation.email, name: invitation.name, role: invitation.role, passwordHash },
        { transaction },
      );
      await queryRows(sql`UPDATE invitations SET accepted_at = ${now}, accepted_user_id = ${user.id} WHERE id = ${invitation.id}`, {
        transaction,
      });
      await recordAuditEvent(
        {
          actor: { userId: user.id, ip },
          action: 'user.accept',
          subject: `user:${user.id}`,
          detail: { invitationId: invitation.id, email: user.email, role: user.role, invitedBy: invitation.invitedBy },
        },
        transaction,
      );
      return { id: user.id, name: user.name, email: user.email, role: user.role };
    });
  } catch (error) {
    // Someone was given an account with this email (users.add) after the invitation went out.
    if (error instanceof UniqueConstraintError)
      throw new AppError('CONFLICT', 'An account with this email exists already: sign in instead.');
    throw error;
  }
}
