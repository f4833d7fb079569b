import type { Transaction } from 'sequelize';
import { AppError } from './errors';
import { queryRows, sql, type Sql } from './sql';
import { visibleTo, type TViewer } from './visibility';

// Nobody locks the firm out of itself (server/access/README.md "Ethical walls"): a change to people or
// walls may not leave the firm without an active director who is screened from nothing (who else could
// lift a screen or appoint a director?), nor a restricted client or case without an active member who
// may see it (it would vanish for everyone, and with it the way to unscreen anyone from it). Each
// caller locks the rows its change contends on first, then asks these questions in its transaction.

/** Active directors screened from nothing: who can manage every wall and every account. */
export async function countUnscreenedDirectors(transaction: Transaction): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    sql`SELECT count(*)::int AS n FROM users u WHERE u.role = 'director' AND u.deactivated_at IS NULL
         AND NOT EXISTS (SELECT 1 FROM access_screens s WHERE s.user_id = u.id)`,
    { transaction },
  );
  return row!.n;
}

/** Whether the person is screened from any client or case at all. */
export async function isScreenedFromAnything(userId: number, transaction?: Transaction): Promise<boolean> {
  const [row] = await queryRows<{ screened: boolean }>(
    sql`SELECT EXISTS (SELECT 1 FROM access_screens WHERE user_id = ${userId}) AS screened`,
    { transaction },
  );
  return row!.screened;
}

/** A restricted client or case: whether an active member may see it, and its name if the viewer may. */
export type TRestrictedMatter = { type: 'client' | 'case'; id: number; label: string | null; seen: boolean };

const seeingMember = (type: 'client' | 'case', subjectId: Sql, rule: Sql) =>
  sql`EXISTS (SELECT 1 FROM access_members m JOIN users u ON u.id = m.user_id AND u.deactivated_at IS NULL
        WHERE m.subject_type = ${type} AND m.subject_id = ${subjectId} AND ${rule})`;

/**
 * Every restricted client and case, and whether an active member may see it by the walls' one rule
 * (a case member screened from the case's client, or no member of its restricted client, does not
 * count). Restricted rows are few and indexed (migration 0018), so this reads the whole firm.
 */
export async function restrictedMatters(viewer: Pick<TViewer, 'id'>, transaction: Transaction): Promise<TRestrictedMatter[]> {
  return queryRows<TRestrictedMatter>(
    sql`SELECT 'client' AS type, c.id, CASE WHEN ${visibleTo(viewer, sql`c.id`, null)} THEN c.name END AS label,
               ${seeingMember('client', sql`c.id`, visibleTo(sql`u.id`, sql`c.id`, null))} AS seen
        FROM clients c WHERE c.restricted
        UNION ALL
        SELECT 'case', k.id, CASE WHEN ${visibleTo(viewer, sql`k.client_id`, sql`k.id`)} THEN k.reference || ' — ' || k.title END,
               ${seeingMember('case', sql`k.id`, visibleTo(sql`u.id`, sql`k.client_id`, sql`k.id`))}
        FROM cases k WHERE k.restricted
        ORDER BY type DESC, id`,
    { transaction },
  );
}

const describeMatter = (matter: TRestrictedMatter) =>
  matter.label === null ? 'a restricted matter you may not see' : `the restricted ${matter.type} “${matter.label}”`;

/**
 * Refuses the change when it left a restricted matter that someone could see with nobody who may:
 * `before` is `restrictedMatters` taken under the same locks before the change (a matter nobody saw
 * already is not this change's doing; its name is as the viewer saw it then). `doing` says the
 * change, as "Screening Sam Staff".
 */
export async function assertNoMatterLeftUnseen(
  viewer: Pick<TViewer, 'id'>,
  before: TRestrictedMatter[],
  doing: string,
  transaction: Transaction,
): Promise<void> {
  const seenBefore = new Map(before.filter((m) => m.seen).map((m) => [`${m.type}:${m.id}`, m]));
  const unseen = (await restrictedMatters(viewer, transaction)).filter((m) => !m.seen);
  const lost = unseen.map((m) => seenBefore.get(`${m.type}:${m.id}`)).find((m) => m !== undefined);
  if (lost)
    throw new AppError(
      'PRECONDITION_FAILED',
      `${doing} would leave ${describeMatter(lost)} with no active member who may see it: add another member first, or lift the restriction.`,
    );
}

/** The refusal for taking away the last active director screened from nothing (`doing`: "Screening Ben Director"). */
export function lastUnscreenedDirectorError(doing: string, name: string): AppError {
  return new AppError(
    'PRECONDITION_FAILED',
    `${doing} would leave the firm with no active director who is not screened (${name} is the last one): nobody could then lift a screen or appoint a director. Make someone else a director first.`,
  );
}
