import { QueryTypes, type Transaction } from 'sequelize';
import { threadKeyOfRef } from '../../shared/thread-key';
import { assertSubjectVisible } from '../access';
import { phoneDigitsOf, type TThreadRef } from '../conversations';
import { db } from '../core/db/db';
import { AppError } from '../core/errors';
import { queryRows, sql } from '../core/sql';
import { visibleTo, type TReader } from '../core/visibility';

/** A conversation as a request names it: a client's, or an unlinked number's. */
export type TConversationRef = TThreadRef;
/** A conversation found and visible to its reader: its key, and its client or number. */
export type TConversation = { key: string; clientId: number; phone: null } | { key: string; clientId: null; phone: string };
export type TPersonRef = { id: number; name: string };

/**
 * The conversation `ref` names, if `reader` may see it: a client walled from them, like one that
 * does not exist, is NOT_FOUND (server/access/README.md "Ethical walls"); so is a number with no conversation of its own.
 */
export async function findConversation(reader: TReader, ref: TConversationRef): Promise<TConversation> {
  if ('clientId' in ref) {
    await assertSubjectVisible(reader, { clientId: ref.clientId });
    return { key: threadKeyOfRef(ref), clientId: ref.clientId, phone: null };
  }
  const digits = phoneDigitsOf(ref.phone);
  const key = threadKeyOfRef({ phone: digits });
  const [row] = await db().query('SELECT 1 FROM chat_threads WHERE thread_key = $1', { bind: [key], type: QueryTypes.SELECT });
  if (!row) throw new AppError('NOT_FOUND', 'Conversation not found.');
  return { key, clientId: null, phone: digits };
}

/**
 * The people among `userIds` and why each may not take part in `conversation` (on `caseId`, if
 * any): unknown, no longer active, or walled from it. One query for them all.
 */
async function checkPeople(
  userIds: number[],
  conversation: TConversation,
  caseId: number | null,
  transaction?: Transaction,
): Promise<{ id: number; name: string | null; refusal: string | null }[]> {
  const sees = visibleTo(sql`u.id`, sql`${conversation.clientId}::int`, sql`${caseId}::int`);
  const rows = await queryRows<{ id: number; name: string | null; active: boolean | null; sees: boolean | null }>(
    sql`SELECT w.id, u.name, u.deactivated_at IS NULL AS active, ${sees} AS sees
     FROM unnest(${userIds}::int[]) AS w(id) LEFT JOIN users u ON u.id = w.id`,
    { transaction },
  );
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    refusal:
      r.name === null
        ? 'That person does not exist.'
        : !r.active
          ? `${r.name} is no longer active.`
          : !r.sees
            ? `${r.name} cannot see this ${caseId === null ? 'client' : 'case'} (an ethical wall).`
            : null,
  }));
}

/**
 * The active person `userId`, who may see `conversation`; otherwise a sentence saying why not,
 * beginning with what was asked (`doing`: "be assigned this conversation").
 */
export async function findPersonWhoMaySee(
  userId: number,
  conversation: TConversation,
  doing: string,
  transaction?: Transaction,
): Promise<TPersonRef> {
  const [person] = await checkPeople([userId], conversation, null, transaction);
  if (!person?.name || person.refusal)
    throw new AppError('INVALID_INPUT', `${person?.refusal ?? 'That person does not exist.'} They cannot ${doing}.`);
  return { id: person.id, name: person.name };
}

/** Refuses, naming them, any of `userIds` who is unknown, inactive or walled from the matter; else their names. */
export async function assertPeopleMaySee(
  userIds: number[],
  conversation: TConversation,
  caseId: number | null,
  doing: string,
): Promise<TPersonRef[]> {
  if (userIds.length === 0) return [];
  const people = await checkPeople(userIds, conversation, caseId);
  const refused = people.filter((p) => p.refusal);
  if (refused.length) throw new AppError('INVALID_INPUT', `${refused.map((p) => p.refusal).join(' ')} ${doing}`);
  return people.map((p) => ({ id: p.id, name: p.name ?? '' }));
}

/** The active people who may see `conversation`, by name: whom it may be assigned to, or who may be mentioned. */
export async function listPeopleWhoMaySee(conversation: TConversation): Promise<TPersonRef[]> {
  return queryRows<TPersonRef>(
    sql`SELECT u.id, u.name FROM users u WHERE u.deactivated_at IS NULL AND ${visibleTo(sql`u.id`, sql`${conversation.clientId}::int`, null)} ORDER BY u.name, u.id`,
  );
}
