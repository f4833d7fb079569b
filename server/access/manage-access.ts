import { QueryTypes, type Transaction } from 'sequelize';
import { actorOf, recordAuditEvent, type TAuditDetail } from '../audit';
import { db } from '../core/db/db';
import { setTransactionActor } from '../core/db/transaction-actor';
import { AppError } from '../core/errors';
import {
  assertNoMatterLeftUnseen,
  countUnscreenedDirectors,
  isScreenedFromAnything,
  lastUnscreenedDirectorError,
  restrictedMatters,
} from '../core/lockout-rules';
import { queryRows, sql } from '../core/sql';
import { visibleTo, type TReader } from '../core/visibility';
import { announceAccessChange } from './announce-access-change';
import { assertSubjectVisible, subjectKeyOf, type TSubject } from './access-gate';

export type TUserRef = { id: number; name: string; email: string; active: boolean };
export type TAccessMember = TUserRef & { addedAt: Date; addedBy: { id: number; name: string } | null; screened: boolean };
export type TAccessScreen = TUserRef & { reason: string; addedAt: Date; addedBy: { id: number; name: string } | null };
export type TAccess = { restricted: boolean; members: TAccessMember[]; screens: TAccessScreen[] };

const typeOf = (subject: TSubject) => ('clientId' in subject ? ('client' as const) : ('case' as const));
const idOf = (subject: TSubject) => ('clientId' in subject ? subject.clientId : subject.caseId);
const tableOf = (subject: TSubject) => ('clientId' in subject ? 'clients' : 'cases');

const PEOPLE_SQL = (table: 'access_members' | 'access_screens', extra: string) => `
  SELECT u.id, u.name, u.email, u.deactivated_at IS NULL AS active, x.added_at AS "addedAt", ${extra}
         CASE WHEN b.id IS NULL THEN NULL ELSE json_build_object('id', b.id, 'name', b.name) END AS "addedBy"
  FROM ${table} x JOIN users u ON u.id = x.user_id LEFT JOIN users b ON b.id = x.added_by
  WHERE x.subject_type = $1 AND x.subject_id = $2
  ORDER BY u.name, u.id`;

/** The wall around a client or a case: whether it is restricted, its members, who is screened and why. */
export async function readAccess(subject: TSubject, transaction?: Transaction): Promise<TAccess> {
  const bind = [typeOf(subject), idOf(subject)];
  const restricted = await isRestricted(subject, transaction);
  const members = await db().query<TAccessMember>(
    PEOPLE_SQL(
      'access_members',
      `EXISTS (SELECT 1 FROM access_screens s WHERE s.subject_type = x.subject_type AND s.subject_id = x.subject_id AND s.user_id = x.user_id) AS screened,`,
    ),
    { bind, type: QueryTypes.SELECT, transaction },
  );
  const screens = await db().query<TAccessScreen>(PEOPLE_SQL('access_screens', 'x.reason,'), {
    bind,
    type: QueryTypes.SELECT,
    transaction,
  });
  return { restricted, members, screens };
}

/** A director's view of a wall: only of a client or case they may see themselves. */
export async function getAccess(reader: TReader, subject: TSubject): Promise<TAccess> {
  await assertSubjectVisible(reader, subject);
  return readAccess(subject);
}

type TWallAction =
  'access.restrict' | 'access.unrestrict' | 'access.member_add' | 'access.member_remove' | 'access.screen' | 'access.unscreen';
/** A change to a wall as the trail records it: the action, and its detail of that action's type. */
type TWallChange = { [A in TWallAction]: { action: A; detail: TAuditDetail<A> } }[TWallAction];
/** What a change let go of (releaseWalledHoldings), said on its event. */
type TReleased = Pick<TAuditDetail<'access.restrict'>, 'conversationUnassigned' | 'responsibleCleared'>;

/**
 * Locks what a wall change contends on, always in one order — people, then the client, then the
 * case — as deactivating someone does (people, then the clients whose walls name them): two changes
 * that could together leave a matter unseen, or the firm without an unscreened director, take turns.
 * `personId`: a screen also takes its person and every active director (server/auth/account-rules.ts).
 */
async function lockForChange(subject: TSubject, personId: number | null, transaction: Transaction): Promise<void> {
  if (personId !== null)
    await queryRows(
      sql`SELECT id FROM users WHERE id = ${personId} OR (role = 'director' AND deactivated_at IS NULL) ORDER BY id FOR UPDATE`,
      {
        transaction,
      },
    );
  const [owner] =
    'clientId' in subject
      ? [{ clientId: subject.clientId }]
      : await queryRows<{ clientId: number }>(sql`SELECT client_id AS "clientId" FROM cases WHERE id = ${subject.caseId}`, { transaction });
  if (owner) await queryRows(sql`SELECT id FROM clients WHERE id = ${owner.clientId} FOR UPDATE`, { transaction });
  if ('caseId' in subject) await queryRows(sql`SELECT id FROM cases WHERE id = ${subject.caseId} FOR UPDATE`, { transaction });
}

/** The change as a refusal names it: "Screening Sam Staff would leave …". */
function doingOf(done: TWallChange, subject: TSubject): string {
  if (done.action === 'access.restrict') return `Restricting this ${typeOf(subject)}`;
  if (done.action === 'access.member_remove') return `Removing ${done.detail.name}`;
  if (done.action === 'access.screen') return `Screening ${done.detail.name}`;
  return 'This change';
}

/**
 * Runs one change to a wall: its rows are locked first (lockForChange), so two directors changing
 * walls at once take turns (the second sees the first's result, and the rules below hold for it),
 * and the change, its audit record and the live views' resync commit together. No change may leave a
 * restricted matter that someone could see with nobody who may (server/core/lockout-rules.ts).
 */
async function changeAccess(
  reader: TReader,
  subject: TSubject,
  change: (transaction: Transaction) => Promise<TWallChange | null>,
  personId: number | null = null,
): Promise<TAccess> {
  return db().transaction(async (transaction) => {
    await setTransactionActor(transaction, reader.id);
    await lockForChange(subject, personId, transaction);
    // Asked once the wall is ours: a director walled off by the change just before this one is refused.
    await assertSubjectVisible(reader, subject, transaction);
    const mattersBefore = await restrictedMatters(reader, transaction);
    const done = await change(transaction);
    if (done) {
      await assertNoMatterLeftUnseen(reader, mattersBefore, doingOf(done, subject), transaction);
      const released = 'clientId' in subject ? await releaseWalledHoldings(subject.clientId, transaction) : {};
      await recordAuditEvent(
        { actor: actorOf(reader), action: done.action, subject: subjectKeyOf(subject), detail: { ...done.detail, ...released } },
        transaction,
      );
      await announceAccessChange(transaction);
    }
    return readAccess(subject, transaction);
  });
}

/**
 * Whoever can no longer see the client lets go of it (server/ownership/README.md "Ownership"): its conversation goes
 * to Unassigned and the client to no responsible person, rather than stay with someone who can
 * neither see nor answer it (and would be told of its messages). Inbox lists read again with the
 * resync every wall change sends. Returns what was let go, for the audit entry.
 */
async function releaseWalledHoldings(clientId: number, transaction: Transaction): Promise<TReleased> {
  const client = sql`${clientId}::int`;
  const [row] = await queryRows<{ unassigned: number | null; responsible: number | null }>(
    sql`WITH unassigned AS (
       UPDATE conversation_states s SET assignee_id = NULL, updated_at = now()
       WHERE s.thread_key = 'client-' || ${client} AND s.assignee_id IS NOT NULL AND NOT ${visibleTo(sql`s.assignee_id`, client, null)}
       RETURNING 1),
     responsible AS (
       UPDATE clients c SET responsible_user_id = NULL, updated_at = now()
       WHERE c.id = ${client} AND c.responsible_user_id IS NOT NULL AND NOT ${visibleTo(sql`c.responsible_user_id`, sql`c.id`, null)}
       RETURNING 1)
     SELECT (SELECT count(*) FROM unassigned)::int AS unassigned, (SELECT count(*) FROM responsible)::int AS responsible`,
    { transaction },
  );
  return {
    ...(row?.unassigned ? { conversationUnassigned: true } : {}),
    ...(row?.responsible ? { responsibleCleared: true } : {}),
  };
}

/**
 * Members who can see the subject once it is restricted: active, and visible to by the walls' one rule
 * (not screened from it, nor walled from its client).
 */
async function countSeeingMembers(subject: TSubject, transaction: Transaction): Promise<number> {
  const rule =
    'clientId' in subject
      ? sql`FROM clients c WHERE c.id = ${subject.clientId} AND ${visibleTo(sql`u.id`, sql`c.id`, null)}`
      : sql`FROM cases k WHERE k.id = ${subject.caseId} AND ${visibleTo(sql`u.id`, sql`k.client_id`, sql`k.id`)}`;
  const [row] = await queryRows<{ n: number }>(
    sql`SELECT count(*)::int AS n FROM access_members m JOIN users u ON u.id = m.user_id AND u.deactivated_at IS NULL
        WHERE m.subject_type = ${typeOf(subject)} AND m.subject_id = ${idOf(subject)} AND EXISTS (SELECT 1 ${rule})`,
    { transaction },
  );
  return row?.n ?? 0;
}

async function isRestricted(subject: TSubject, transaction?: Transaction): Promise<boolean> {
  const [row] = await db().query<{ restricted: boolean }>(`SELECT restricted FROM ${tableOf(subject)} WHERE id = $1`, {
    bind: [idOf(subject)],
    type: QueryTypes.SELECT,
    transaction,
  });
  return row?.restricted ?? false;
}

type TPerson = { id: number; name: string; role: 'director' | 'staff'; active: boolean };

/** The person a wall names: they must exist; a member must also be able to sign in. */
async function findPerson(userId: number, transaction: Transaction): Promise<TPerson> {
  const [person] = await db().query<TPerson>('SELECT id, name, role, deactivated_at IS NULL AS active FROM users WHERE id = $1', {
    bind: [userId],
    type: QueryTypes.SELECT,
    transaction,
  });
  if (!person) throw new AppError('NOT_FOUND', 'That person is not on the firm’s list of people.', { userId: ['No such person.'] });
  return person;
}

/** Takes a person off a wall's members or screens; true when they were on it. */
async function deletePersonRow(
  table: 'access_members' | 'access_screens',
  subject: TSubject,
  userId: number,
  transaction: Transaction,
): Promise<boolean> {
  const [removed] = await db().query(
    `DELETE FROM ${table} WHERE subject_type = $1 AND subject_id = $2 AND user_id = $3 RETURNING user_id`,
    {
      bind: [typeOf(subject), idOf(subject), userId],
      transaction,
    },
  );
  return removed.length > 0;
}

const NO_MEMBERS =
  'A restricted matter needs at least one member who can see it (active and not screened): add one first, or lift the restriction.';

export async function setRestricted(reader: TReader, subject: TSubject, restricted: boolean): Promise<TAccess> {
  return changeAccess(reader, subject, async (transaction) => {
    if ((await isRestricted(subject, transaction)) === restricted) return null;
    if (restricted && (await countSeeingMembers(subject, transaction)) === 0) throw new AppError('CONFLICT', NO_MEMBERS);
    await db().query(`UPDATE ${tableOf(subject)} SET restricted = $2 WHERE id = $1`, { bind: [idOf(subject), restricted], transaction });
    return { action: restricted ? 'access.restrict' : 'access.unrestrict', detail: {} };
  });
}

export async function addMember(reader: TReader, subject: TSubject, userId: number): Promise<TAccess> {
  return changeAccess(reader, subject, async (transaction) => {
    const person = await findPerson(userId, transaction);
    if (!person.active)
      throw new AppError('CONFLICT', `${person.name} is deactivated: reactivate them in Settings › People before adding them.`, {
        userId: ['Deactivated.'],
      });
    const [added] = await db().query(
      `INSERT INTO access_members (subject_type, subject_id, user_id, added_by) VALUES ($1, $2, $3, $4)
       ON CONFLICT DO NOTHING RETURNING user_id`,
      { bind: [typeOf(subject), idOf(subject), userId, reader.id], transaction },
    );
    return added.length ? { action: 'access.member_add', detail: { userId, name: person.name } } : null;
  });
}

export async function removeMember(reader: TReader, subject: TSubject, userId: number): Promise<TAccess> {
  return changeAccess(reader, subject, async (transaction) => {
    const person = await findPerson(userId, transaction);
    if (!(await deletePersonRow('access_members', subject, userId, transaction))) return null;
    if ((await isRestricted(subject, transaction)) && (await countSeeingMembers(subject, transaction)) === 0)
      throw new AppError('CONFLICT', `${person.name} is the last member who can see this restricted matter. ${NO_MEMBERS}`);
    return { action: 'access.member_remove', detail: { userId, name: person.name } };
  });
}

/**
 * Screens a person from the subject: they see nothing of it from now on, member or director alike,
 * and a director may screen themself (a conflicted director stepping aside). A second screen of the
 * same person keeps the first and its reason.
 */
export async function screenPerson(reader: TReader, subject: TSubject, userId: number, reason: string): Promise<TAccess> {
  return changeAccess(
    reader,
    subject,
    async (transaction) => {
      const person = await findPerson(userId, transaction);
      await assertKeepsUnscreenedDirector(person, transaction);
      const [added] = await db().query(
        `INSERT INTO access_screens (subject_type, subject_id, user_id, reason, added_by) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT DO NOTHING RETURNING user_id`,
        { bind: [typeOf(subject), idOf(subject), userId, reason, reader.id], transaction },
      );
      return added.length ? { action: 'access.screen', detail: { userId, name: person.name, reason, self: userId === reader.id } } : null;
    },
    userId,
  );
}

/** A screen may not take away the last active director screened from nothing (their rows are locked). */
async function assertKeepsUnscreenedDirector(person: TPerson, transaction: Transaction): Promise<void> {
  if (person.role !== 'director' || !person.active) return;
  if (!(await isScreenedFromAnything(person.id, transaction)) && (await countUnscreenedDirectors(transaction)) <= 1)
    throw lastUnscreenedDirectorError(`Screening ${person.name}`, person.name);
}

export async function unscreenPerson(reader: TReader, subject: TSubject, userId: number): Promise<TAccess> {
  return changeAccess(reader, subject, async (transaction) => {
    const person = await findPerson(userId, transaction);
    const removed = await deletePersonRow('access_screens', subject, userId, transaction);
    return removed ? { action: 'access.unscreen', detail: { userId, name: person.name } } : null;
  });
}

export type TPersonWall = { subjectType: 'client' | 'case'; subjectId: number; name: string; reason: string | null; addedAt: Date };

/**
 * The walls naming one person (Settings › People): their screens and memberships, of the clients and
 * cases the reader may see themself — a wall around a matter the reader is walled from stays unnamed.
 */
export async function listPersonWalls(reader: TReader, userId: number): Promise<{ screens: TPersonWall[]; memberships: TPersonWall[] }> {
  const rows = await queryRows<TPersonWall & { kind: 'screen' | 'member' }>(
    sql`SELECT w.kind, w.subject_type AS "subjectType", w.subject_id AS "subjectId", w.reason, w.added_at AS "addedAt",
            coalesce(c.name, k.reference || ' — ' || k.title) AS name
     FROM (SELECT 'screen' AS kind, subject_type, subject_id, reason, added_at FROM access_screens WHERE user_id = ${userId}
           UNION ALL SELECT 'member', subject_type, subject_id, NULL, added_at FROM access_members WHERE user_id = ${userId}) w
     LEFT JOIN clients c ON w.subject_type = 'client' AND c.id = w.subject_id
     LEFT JOIN cases k ON w.subject_type = 'case' AND k.id = w.subject_id
     WHERE (c.id IS NOT NULL AND ${visibleTo(reader, sql`c.id`, null)}) OR (k.id IS NOT NULL AND ${visibleTo(reader, sql`k.client_id`, sql`k.id`)})
     ORDER BY name, w.subject_id`,
  );
  const strip = ({ kind: _kind, ...wall }: TPersonWall & { kind: string }): TPersonWall => wall;
  return { screens: rows.filter((r) => r.kind === 'screen').map(strip), memberships: rows.filter((r) => r.kind === 'member').map(strip) };
}
