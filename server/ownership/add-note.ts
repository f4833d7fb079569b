import { QueryTypes } from 'sequelize';
import { assertSubjectVisible } from '../access';
import { assertClientWritable } from '../core/client-writable';
import { db } from '../core/db/db';
import { AppError } from '../core/errors';
import { queryRows, sql } from '../core/sql';
import type { TReader } from '../core/visibility';
import { announcedCte } from '../events';
import { notifyPeople } from '../notifications';
import { assertPeopleMaySee, findConversation, type TConversationRef } from './conversation-ref';
import { findMentions } from './find-mentions';

export const NOTE_MAX_LENGTH = 4_096;

/**
 * Stores an internal note in a conversation (a `chat_note` record): shown beside its messages and
 * on the client's and case's timelines as internal, never sent (it never goes near the provider:
 * no send path reads this type), never counted as the client writing. Under the walls a note is
 * exactly as visible as a message on the same client and case (server/access/README.md "Ethical walls"). Everyone it
 * mentions must be able to see it; each is notified. It reaches open pages like any record.
 */
export async function addNote(
  reader: TReader,
  input: TConversationRef & { body: string; mentions?: number[]; caseId?: number },
): Promise<{ id: number; mentions: number[] }> {
  const body = input.body.trim();
  if (!body) throw new AppError('INVALID_INPUT', 'Write the note first.', { body: ['Empty.'] });
  if (body.length > NOTE_MAX_LENGTH)
    throw new AppError(
      'INVALID_INPUT',
      `A note can be ${NOTE_MAX_LENGTH.toLocaleString('en-GB')} characters at most; this one has ${body.length.toLocaleString('en-GB')}.`,
      {
        body: ['Too long.'],
      },
    );
  const conversation = await findConversation(reader, input);
  // An erased client is read-only (server/records/README.md "Records"): no new note about them either.
  if (conversation.clientId !== null) await assertClientWritable(conversation.clientId);
  const caseId = input.caseId ?? null;
  if (caseId !== null) {
    if (conversation.clientId === null) throw new AppError('INVALID_INPUT', 'A note on an unlinked number cannot be filed on a case.');
    await assertSubjectVisible(reader, { caseId });
    const [onClient] = await db().query('SELECT 1 FROM cases WHERE id = $1 AND client_id = $2', {
      bind: [caseId, conversation.clientId],
      type: QueryTypes.SELECT,
    });
    if (!onClient) throw new AppError('INVALID_INPUT', 'That case is not one of this client’s.');
  }
  const mentions = await findMentions(body, input.mentions ?? []);
  await assertPeopleMaySee(mentions, conversation, caseId, 'Remove the mention, or ask a director about access.');
  return db().transaction(async (transaction) => {
    const [row] = await queryRows<{ id: number }>(
      sql`WITH inserted AS (
         INSERT INTO communications (type, body, client_id, case_id, peer_phone, sent_by, metadata)
         VALUES ('chat_note', ${body}, ${conversation.clientId}, ${caseId}, ${conversation.phone}, ${reader.id}, ${JSON.stringify({ mentions })}::jsonb) RETURNING id),
       ${announcedCte(sql`inserted`)}
       SELECT id, (SELECT count(*) FROM announced) AS announced FROM inserted`,
      { transaction },
    );
    if (!row) throw new Error('the note was not stored');
    await notifyPeople(
      mentions.map((userId) => ({ userId, kind: 'mention', threadKey: conversation.key, communicationId: row.id, actorId: reader.id })),
      transaction,
    );
    return { id: row.id, mentions };
  });
}
