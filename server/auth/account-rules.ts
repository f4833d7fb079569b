import type { Transaction } from 'sequelize';
import type { TActor } from '../audit';
import { AppError } from '../core/errors';
import { countUnscreenedDirectors, isScreenedFromAnything, lastUnscreenedDirectorError } from '../core/lockout-rules';
import { queryRows, sql } from '../core/sql';

// Accounts cannot be used to go around a wall (server/access/README.md "Ethical walls"): a director
// screened from any matter could otherwise make an account, or give one a password or a role, and
// read the matter through it. So whoever is screened from anything manages no account at all.

export const SCREENED_MANAGER = 'You are screened from a matter, so you cannot manage accounts: ask a director who is not screened.';

/**
 * Refuses a screened actor (FORBIDDEN: the person asked about exists). Asked after the actor's row is
 * locked: a screen always locks its person's row first (server/access/manage-access.ts), so a screen
 * and an account change by the person screened take turns. The server itself (a script) is not screened.
 */
export async function assertMayManageAccounts(actor: TActor, transaction: Transaction): Promise<void> {
  if (actor.userId !== null && (await isScreenedFromAnything(actor.userId, transaction))) throw new AppError('FORBIDDEN', SCREENED_MANAGER);
}

/**
 * Refuses taking away (deactivating, demoting) the last active director screened from nothing.
 * The caller holds every active director's row, and a screen takes them too, so this cannot race.
 */
export async function assertKeepsUnscreenedDirector(
  target: { id: number; name: string; role: string; deactivatedAt: Date | null },
  doing: string,
  transaction: Transaction,
): Promise<void> {
  if (target.role !== 'director' || target.deactivatedAt) return;
  if (await isScreenedFromAnything(target.id, transaction)) return;
  if ((await countUnscreenedDirectors(transaction)) <= 1) throw lastUnscreenedDirectorError(doing, target.name);
}

/**
 * Locks the clients whose walls name the person as a member (directly, or through one of their
 * cases), in id order: a wall change locks its client row first, so deactivating someone and
 * removing the other member of their restricted matter take turns and cannot both pass.
 */
export async function lockMattersOf(userId: number, transaction: Transaction): Promise<void> {
  await queryRows(
    sql`SELECT c.id FROM clients c
        WHERE c.id IN (SELECT m.subject_id FROM access_members m WHERE m.subject_type = 'client' AND m.user_id = ${userId}
                       UNION SELECT k.client_id FROM access_members m JOIN cases k ON k.id = m.subject_id
                             WHERE m.subject_type = 'case' AND m.user_id = ${userId})
        ORDER BY c.id FOR UPDATE OF c`,
    { transaction },
  );
}
