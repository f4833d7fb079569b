import { assertSubjectVisible } from '../access';
import { queryRows, sql, sqlInteger } from '../core/sql';
import { visibleTo, type TReader } from '../core/visibility';
import type { TScheduledState } from './change-scheduled-send';
import type { TScheduledTemplate } from './scheduled-inputs';
import type { TScheduledKind } from './schedule-send';

/** One scheduled send as its lists show it; `body` is a file's caption, `to` the number's digits. */
export type TScheduledSend = {
  id: number;
  kind: TScheduledKind;
  body: string | null;
  template: TScheduledTemplate | null;
  attachmentId: number | null;
  fileName: string | null;
  sendAt: Date;
  state: TScheduledState;
  /** Not sent if the client writes after it was scheduled ("Don't send if they reply first"). */
  unlessReplied: boolean;
  /** Why it was not sent, for a `not_sent` one. */
  reason: string | null;
  author: { id: number; name: string };
  clientId: number;
  clientName: string;
  caseId: number | null;
  to: string;
  communicationId: number | null;
  createdAt: Date;
  updatedAt: Date;
};

/** How long a send that could not go stays on the lists (until it is cancelled, which takes it off). */
const KEEP_NOT_SENT = sql`interval '7 days'`;
/** Which rows: one conversation's, everyone's, or the reader's own. */
const whose = (reader: TReader, filter: { clientId?: number; everyone?: boolean }) =>
  filter.clientId !== undefined ? sql`s.client_id = ${filter.clientId}` : filter.everyone ? sql`true` : sql`s.created_by = ${reader.id}`;

/** A list is one conversation's or one person's: a bound keeps an answer small whatever happens. */
const LIST_LIMIT = 500;

/**
 * What waits to be sent, soonest first, with what recently could not go (its reason beside it):
 * in one client's conversation (`clientId`: anyone who may see the client; walled, it is NOT_FOUND),
 * or else everything the reader scheduled, or with `everyone` (a director's team view, checked by the
 * router) everyone's, each with its author. Each row is also held to the walls on its own case,
 * so a send filed on a case walled from the reader is left out. The firm's automatic replies are
 * not listed (server/messaging/README.md "Scheduled sends").
 */
export async function listScheduledSends(
  reader: TReader,
  filter: { clientId?: number; everyone?: boolean } = {},
): Promise<TScheduledSend[]> {
  if (filter.clientId !== undefined) await assertSubjectVisible(reader, { clientId: filter.clientId });
  const rows = await queryRows<TScheduledSend & { authorId: number; authorName: string }>(
    sql`SELECT s.id, s.kind, s.body, s.template, s.attachment_id AS "attachmentId", a.file_name AS "fileName", s.send_at AS "sendAt",
            s.state, s.unless_replied AS "unlessReplied", s.reason, s.created_by AS "authorId", u.name AS "authorName", s.client_id AS "clientId", cl.name AS "clientName",
            s.case_id AS "caseId", s.to_digits AS "to", s.communication_id AS "communicationId", s.created_at AS "createdAt",
            s.updated_at AS "updatedAt"
     FROM scheduled_sends s
     JOIN users u ON u.id = s.created_by
     JOIN clients cl ON cl.id = s.client_id
     LEFT JOIN attachments a ON a.id = s.attachment_id
     WHERE s.kind <> 'auto_reply'
       AND ${whose(reader, filter)}
       AND s.state IN ('scheduled', 'not_sent') AND (s.state = 'scheduled' OR (s.state = 'not_sent' AND s.updated_at > now() - ${KEEP_NOT_SENT}))
       AND ${visibleTo(reader, sql`s.client_id`, sql`s.case_id`)}
     ORDER BY s.send_at, s.id
     LIMIT ${sqlInteger(LIST_LIMIT)}`,
  );
  return rows.map(({ authorId, authorName, ...row }) => ({ ...row, id: Number(row.id), author: { id: authorId, name: authorName } }));
}
