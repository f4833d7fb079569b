import { actorOf, recordAuditEvent } from '../audit';
import { announcedCte } from '../events';
import { AppError } from '../core/errors';
import { db } from '../core/db/db';
import { queryRows, sql } from '../core/sql';
import { visibleTo, type TReader } from '../core/visibility';
import { assertSubjectVisible } from '../access';

/** The most records one refile moves (a page of the timeline). */
export const MAX_REFILED = 500;

/**
 * Moves some of a client's records to one of their cases, or to none: a person's correction of
 * where messages were filed. One statement moves them all (locked, so two people refiling at once
 * apply one after the other), announces them to live views and is audited with where each came
 * from. Every id must be this client's record and the case this client's: otherwise nothing moves.
 */
export async function refileRecords(
  reader: TReader,
  input: { clientId: number; ids: number[]; caseId: number | null },
): Promise<{ moved: number }> {
  await assertSubjectVisible(reader, { clientId: input.clientId });
  const actor = actorOf(reader);
  const ids = [...new Set(input.ids)];
  return db().transaction(async (transaction) => {
    if (input.caseId !== null) {
      // A case the reader is walled from is one they cannot file to either.
      const [found] = await queryRows<{ id: number }>(
        sql`SELECT k.id FROM cases k WHERE k.id = ${input.caseId} AND k.client_id = ${input.clientId} AND ${visibleTo(reader, sql`k.client_id`, sql`k.id`)}`,
        { transaction },
      );
      if (!found)
        throw new AppError('INVALID_INPUT', 'That case does not belong to this client.', {
          caseId: ["Choose one of this client's cases."],
        });
    }
    const own = await queryRows<{ id: number }>(
      sql`SELECT c.id FROM communications c WHERE c.id = ANY(${ids}::int[]) AND c.client_id = ${input.clientId}
         AND ${visibleTo(reader, sql`c.client_id`, sql`c.case_id`)}
       ORDER BY c.id FOR UPDATE`,
      { transaction },
    );
    // A record that is not this client's, or one on a case the reader is walled from, is NOT_FOUND,
    // exactly like one that does not exist.
    if (own.length !== ids.length)
      throw new AppError('NOT_FOUND', 'Some of those records were not found on this client; nothing was moved.');
    const records = await queryRows<{ id: number; was: number | null }>(
      sql`WITH changed AS (
         UPDATE communications c SET case_id = ${input.caseId}::int, updated_at = now()
         FROM (SELECT id, case_id AS was FROM communications WHERE id = ANY(${ids}::int[])) o
         WHERE c.id = o.id AND c.case_id IS DISTINCT FROM ${input.caseId}::int
         RETURNING c.id, o.was
       ), ${announcedCte(sql`changed`)}
       SELECT id, was FROM changed`,
      { transaction },
    );
    if (records.length)
      await recordAuditEvent(
        {
          actor,
          action: 'communication.refile',
          subject: `client:${input.clientId}`,
          detail: { caseId: input.caseId, records: records.map((r) => ({ id: r.id, fromCaseId: r.was })) },
        },
        transaction,
      );
    return { moved: records.length };
  });
}
