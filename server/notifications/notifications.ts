import { QueryTypes } from 'sequelize';
import { db } from '../core/db/db';
import { decodeCursor, endPage } from '../core/record-pages';
import { queryRows, sql, type Sql } from '../core/sql';
import { clientOfThreadKey } from '../core/thread-key-sql';
import { visibleTo, type TViewer } from '../core/visibility';
import { firstWords, NOTE_WORDS_COLUMN } from './note-words';
import { announceNotifications, type TNotificationKind } from './notify-people';

export type TNotification = {
  id: number;
  kind: TNotificationKind;
  at: Date;
  readAt: Date | null;
  threadRef: { clientId: number } | { phone: string };
  /** The client's name, else the number's profile name, else the number. */
  threadName: string;
  communicationId: number | null;
  actor: { id: number; name: string } | null;
  /** For 'assigned': who has the conversation now (null: nobody). */
  assignee: { id: number; name: string } | null;
  /** For 'scheduled_not_sent': the send that could not go, and why (never its words). */
  scheduledSend: { id: number; reason: string | null; sendAt: Date } | null;
  /** For 'mention': the note's first words (note-words.ts). */
  noteWords: string | null;
};

// A notification is about a conversation and often a record in it (or a scheduled send, on its
// case): under the walls (server/access/README.md "Ethical walls") it is shown only while its person may still see
// both, so one that became walled after it was made is left out rather than deleted (it comes back
// with the access).
const CLIENT_OF_KEY = clientOfThreadKey(sql`n.thread_key`);
const CASE_OF_NOTIFICATION = sql`coalesce(m.case_id, ss.case_id)`;
const visibleToViewer = (viewer: TViewer): Sql => visibleTo(viewer, CLIENT_OF_KEY, CASE_OF_NOTIFICATION);
/** What a notification is about: its record and its scheduled send, each when it has one. */
const ABOUT = sql`LEFT JOIN communications m ON m.id = n.communication_id
     LEFT JOIN scheduled_sends ss ON ss.id = n.scheduled_send_id`;

type TRow = {
  id: string;
  kind: TNotificationKind;
  at: Date;
  readAt: Date | null;
  threadKey: string;
  clientName: string | null;
  contactName: string | null;
  communicationId: number | null;
  actorId: number | null;
  actorName: string | null;
  assigneeId: number | null;
  assigneeName: string | null;
  scheduledSendId: number | null;
  scheduledReason: string | null;
  scheduledSendAt: Date | null;
  noteWords: string | null;
};

const PAGE = 30;
const REFUSED = { message: 'That page of notifications is not valid: reload them.', field: 'Not a cursor from the notifications.' };

/** The reader's notifications, newest first; `cursor`: a previous `nextCursor`. */
export async function listNotifications(
  viewer: TViewer,
  page: { cursor?: string; limit?: number } = {},
): Promise<{ items: TNotification[]; nextCursor: string | null }> {
  const limit = page.limit ?? PAGE;
  const before = page.cursor ? decodeCursor(page.cursor, (value) => value === 'n', REFUSED).id : null;
  const rows = await queryRows<TRow>(
    sql`SELECT n.id, n.kind, n.at, n.read_at AS "readAt", n.thread_key AS "threadKey", cl.name AS "clientName",
       t.contact_name AS "contactName", n.communication_id AS "communicationId",
       n.actor_id AS "actorId", a.name AS "actorName", n.assignee_id AS "assigneeId", s.name AS "assigneeName",
       n.scheduled_send_id AS "scheduledSendId", ss.reason AS "scheduledReason", ss.send_at AS "scheduledSendAt",
       ${NOTE_WORDS_COLUMN} AS "noteWords"
     FROM notifications n
     ${ABOUT}
     LEFT JOIN clients cl ON cl.id = ${CLIENT_OF_KEY}
     LEFT JOIN chat_threads t ON t.thread_key = n.thread_key
     LEFT JOIN users a ON a.id = n.actor_id
     LEFT JOIN users s ON s.id = n.assignee_id
     WHERE n.user_id = ${viewer.id} AND (${before}::bigint IS NULL OR n.id < ${before}::bigint) AND ${visibleToViewer(viewer)}
     ORDER BY n.id DESC LIMIT ${limit + 1}`,
  );
  const { rows: kept, next } = endPage(
    rows.map((r) => ({ ...r, id: Number(r.id) })),
    limit,
    () => 'n',
  );
  return { items: kept.map(toNotification), nextCursor: next };
}

function toNotification(r: Omit<TRow, 'id'> & { id: number }): TNotification {
  const phone = r.threadKey.startsWith('phone-') ? r.threadKey.slice('phone-'.length) : null;
  return {
    id: r.id,
    kind: r.kind,
    at: r.at,
    readAt: r.readAt,
    threadRef: phone === null ? { clientId: Number(r.threadKey.slice('client-'.length)) } : { phone },
    // As the inbox names it: a profile name is the sender's own claim, marked with "~".
    threadName: r.clientName ?? (r.contactName ? `~${r.contactName}` : `+${phone ?? ''}`),
    communicationId: r.communicationId,
    actor: r.actorId !== null ? { id: r.actorId, name: r.actorName ?? '' } : null,
    assignee: r.assigneeId !== null ? { id: r.assigneeId, name: r.assigneeName ?? '' } : null,
    scheduledSend:
      r.scheduledSendId !== null ? { id: Number(r.scheduledSendId), reason: r.scheduledReason, sendAt: r.scheduledSendAt! } : null,
    noteWords: firstWords(r.noteWords),
  };
}

/** How many of the reader's notifications they have not read (and may still see). */
export async function countUnreadNotifications(viewer: TViewer): Promise<number> {
  const [row] = await queryRows<{ count: number }>(
    sql`SELECT count(*)::int AS count FROM notifications n ${ABOUT}
     WHERE n.user_id = ${viewer.id} AND n.read_at IS NULL AND ${visibleToViewer(viewer)}`,
  );
  return row?.count ?? 0;
}

/** Marks the reader's own notifications read (these ids, or all); returns how many changed. */
export async function markNotificationsRead(viewer: TViewer, which: { ids: number[] } | { all: true }): Promise<number> {
  // Only what they may see: marking a walled one read would tell them, by the count, that it exists.
  const ids = 'ids' in which ? which.ids : null;
  const rows = await queryRows<{ id: string }>(
    sql`UPDATE notifications n SET read_at = now()
     WHERE n.user_id = ${viewer.id} AND n.read_at IS NULL AND (${ids}::bigint[] IS NULL OR n.id = ANY(${ids}::bigint[]))
       AND ${visibleTo(
         viewer,
         CLIENT_OF_KEY,
         sql`coalesce((SELECT m.case_id FROM communications m WHERE m.id = n.communication_id),
                   (SELECT ss.case_id FROM scheduled_sends ss WHERE ss.id = n.scheduled_send_id))`,
       )}
     RETURNING n.id`,
  );
  return rows.length;
}

/** Marks the reader's unread notifications about one conversation read (they have just read it); their other pages hear of it. Returns how many. */
export async function markThreadNotificationsRead(viewer: TViewer, threadKey: string, now: Date): Promise<number> {
  const rows = await db().query<{ id: string }>(
    'UPDATE notifications SET read_at = $3 WHERE user_id = $1 AND thread_key = $2 AND read_at IS NULL RETURNING id',
    { bind: [viewer.id, threadKey, now], type: QueryTypes.SELECT },
  );
  if (rows.length) await announceNotifications([viewer.id]);
  return rows.length;
}
