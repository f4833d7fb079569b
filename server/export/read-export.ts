import { QueryTypes, Transaction } from 'sequelize';
import type { TDirection, TEdit, TReaction, TReceiptHistory, TMessageKind } from '../../shared/communication';
import { readChainHead } from '../audit';
import { DEFAULT_TIME_ZONE, readBusinessHours } from '../business-hours';
import { db } from '../core/db/db';
import { empty, queryRows, raw, sql, sqlInteger, type Sql } from '../core/sql';
import { visibleTo } from '../core/visibility';
import { isKnownTimeZone } from '../../shared/time-zone';

/** What an export covers: one client's chat, or the chat filed on one case. */
export type TExportScope = { type: 'client' | 'case'; id: number };

/** The header of an evidence export (server/export/README.md "Evidence exports"). */
export type TExportHeader = {
  firm: string;
  subject: { type: 'client' | 'case'; id: number; name: string; reference: string | null; clientName: string; numbers: string[] };
  /** Stored times of the first and last message; null when there are none. */
  period: { from: string; to: string } | null;
  count: number;
  /** The firm's internal notes among the records, besides the `count` chat messages (never sent; server/ownership/README.md "Ownership"). */
  internalNotes: number;
  /** A case export: chat messages with the case's client that are not filed on the case (not in this export). */
  notOnCase: number | null;
  exportedAt: string;
  exportedBy: { id: number; name: string; email: string };
  /**
   * The audit trail's head as this export's snapshot saw it (server/records/README.md "Records"): the export's own
   * `export.create` row comes after it, so a later verification shows the trail this copy was made from.
   */
  auditHead: { id: number | null; hash: string };
  /**
   * The firm's time zone (IANA name), in which the PDF writes times with UTC beside them: the zone of
   * the firm's business hours when a director saved them (server/messaging/README.md "Business hours": the firm has one
   * clock), else FIRM_TIME_ZONE. Always set by readExport; a header made by hand without it reads
   * as Europe/London.
   */
  timeZone?: string;
};

/** One message as exported: what the record says, with provider ids and every receipt time. */
export type TExportMessage = {
  id: number;
  /** The firm's internal note beside the messages: never sent to the client. */
  internal: boolean;
  direction: TDirection | null;
  kind: TMessageKind;
  sentBy: { id: number; name: string } | null;
  /** The client's number the message came from or went to. */
  peerPhone: string | null;
  /** The firm's number it went through (server/numbers/README.md "Several numbers"); null for an internal note. */
  firmNumber: { id: number; phone: string; label: string } | null;
  /** The reference of the case the message is filed on; null when it is on none (server/export/README.md "Evidence exports"). */
  caseReference: string | null;
  /** The profile name the provider reported with an inbound message. */
  contactName: string | null;
  body: string;
  chatMsgId: string | null;
  providerTime: string | null;
  storedTime: string;
  status: string | null;
  error: string | null;
  receipts: TReceiptHistory;
  /** When an inbound message was first opened in the app (by anyone: who is not recorded). */
  readByFirmAt: string | null;
  /** Provider id of the message this one answers. */
  replyTo: string | null;
  /**
   * The message `replyTo` names, when it is in this export (same subject, and the exporter may see
   * it): its record, side, time (provider time, else stored) and up to 200 characters of its text.
   */
  quoted: { id: number; direction: TDirection | null; at: string; excerpt: string } | null;
  /** The firm's question with quick-reply buttons: the buttons it offered (server/messaging/README.md "Quick-reply buttons"). */
  buttons: { id: string; title: string }[] | null;
  /** A resend (server/messaging/README.md "Sending messages"): the record of the failed message this one is a copy of. */
  resentFrom: number | null;
  forwarded: boolean;
  /** Sent from the firm's phone app rather than from this app. */
  fromFirmPhone: boolean;
  /**
   * Imported from a phone's export of the chat (server/imports/README.md "History from the phone"), not received through the
   * provider: the import, the line of the export's text it starts on, the export's SHA-256 and the name the phone showed.
   */
  imported: { statement: typeof IMPORTED_STATEMENT; importId: string; line: number; fileSha256: string; sender: string } | null;
  edits: TEdit[];
  revokedAt: string | null;
  reactions: TReaction[];
  truncated: { length: number; sha256: string } | null;
  /**
   * The message's files. `exhibit` numbers every file of the export from 1, in the order the
   * messages are exported (then by attachment id), stored or not: a court bundle's `exhibits/NNN-…`
   * and the transcript's references use the same numbers.
   */
  attachments: {
    id: number;
    exhibit: number;
    kind: string;
    fileName: string | null;
    mimeType: string;
    size: number | null;
    sha256: string | null;
    state: string;
    /**
     * Its bytes were stored once and are gone now: erased (retention or an erasure request, server/records/README.md
     * "Records") or deleted since. A court bundle cannot hold it, and the PDF says why.
     */
    destroyed: boolean;
  }[];
};

/** What every copy says of an imported message: where it came from, and where it did not. */
export const IMPORTED_STATEMENT = "Imported from the phone's export, not received through the provider";

/** One file of the export, as the PDF's index of exhibits lists it. */
export type TExportExhibit = TExportMessage['attachments'][number] & {
  /** The record the file came with, and when it was stored. */
  messageId: number;
  storedTime: string;
};

/** The export's snapshot, for a writer that needs the messages more than once (a court bundle). */
export type TExportSnapshot = {
  /** The same messages again, from the first, read in the same snapshot as the header. */
  pages(): AsyncIterable<TExportMessage[]>;
  /** Every file of the export in exhibit order, numbered as in `pages()`, without the messages' text. */
  exhibits(): AsyncIterable<TExportExhibit[]>;
  transaction: Transaction;
};

/** A conversation's record: its messages and the firm's internal notes, each note marked internal. */
const exportedTypesOf = (alias: Sql): Sql => sql`${alias}.type IN ('chat', 'chat_note')`;
const EXPORTED_TYPES = exportedTypesOf(sql`m`);
/** What the exporting person may see of the record `alias` (server/access/README.md "Ethical walls"). */
const visibleToExporter = (viewerId: number, alias: Sql): Sql =>
  visibleTo({ id: viewerId }, sql`${alias}.client_id`, sql`${alias}.case_id`);

/**
 * Whether a file's bytes were stored once and are gone now, as SQL over `a` (an attachments row):
 * erased, or stored with a size yet no chunk left (one index probe on attachment_chunks' key).
 */
const DESTROYED_SQL = sql`(a.erased_at IS NOT NULL OR (a.state = 'stored' AND coalesce(a.size, 1) > 0
  AND NOT EXISTS (SELECT 1 FROM attachment_chunks b WHERE b.attachment_id = a.id)))`;

/** A page is at most this many messages, and at most this much text (edits included) beyond its first. */
const PAGE_SIZE = 500;
const PAGE_BYTES = 2_000_000;
/** Files listed per query of the exhibit index. */
const EXHIBIT_PAGE_SIZE = 1_000;
/** A quoted message's text is cut to this many characters (an ellipsis included). */
export const QUOTE_EXCERPT_CHARACTERS = 200;

type TMessageRow = Omit<TExportMessage, 'providerTime' | 'storedTime' | 'readByFirmAt' | 'attachments' | 'quoted'> & {
  attachments: Omit<TExportMessage['attachments'][number], 'exhibit'>[];
  /** `at` as json_build_object prints a timestamptz. */
  quoted: (Omit<NonNullable<TExportMessage['quoted']>, 'at'> & { at: string }) | null;
  providerTime: Date | null;
  storedTime: Date;
  readByFirmAt: Date | null;
  /** created_at as PostgreSQL prints it: microseconds, which a Date would round away, so the next page starts exactly after it. */
  cursorAt: string;
  /** How many messages the page's query reached before the text limit cut it. */
  reached: number;
  bytes?: number;
  pageBytes?: number;
  pageRow?: number;
};

/**
 * One snapshot of a subject's chat (REPEATABLE READ, read only): the header and the messages agree
 * even while new messages arrive. `write` receives the messages a page at a time, oldest first, so
 * an export of any length holds one page in memory.
 */
export async function readExport(
  request: {
    scope: TExportScope;
    firm: string;
    user: { id: number; name: string; email: string };
    now: Date;
    signal?: AbortSignal;
    /** FIRM_TIME_ZONE (config): the zone when the firm saved no business hours. Default Europe/London. */
    firmTimeZone?: string;
  },
  write: (header: TExportHeader, pages: AsyncIterable<TExportMessage[]>, snapshot: TExportSnapshot) => Promise<void>,
): Promise<TExportHeader | null> {
  return db().transaction({ isolationLevel: Transaction.ISOLATION_LEVELS.REPEATABLE_READ }, async (transaction) => {
    await db().query('SET TRANSACTION READ ONLY', { transaction });
    const column = request.scope.type === 'client' ? 'client_id' : 'case_id';
    const [subject] = await db().query<Omit<TExportHeader['subject'], 'type'>>(
      request.scope.type === 'client'
        ? `SELECT c.id, c.name, NULL AS reference, c.name AS "clientName",
                  coalesce((SELECT array_agg(n.digits ORDER BY n."primary" DESC, n.digits) FROM client_numbers n WHERE n.client_id = c.id), '{}') AS numbers
           FROM clients c WHERE c.id = $1`
        : `SELECT k.id, k.title AS name, k.reference, c.name AS "clientName",
                  coalesce((SELECT array_agg(n.digits ORDER BY n."primary" DESC, n.digits) FROM client_numbers n WHERE n.client_id = c.id), '{}') AS numbers
           FROM cases k JOIN clients c ON c.id = k.client_id WHERE k.id = $1`,
      { bind: [request.scope.id], type: QueryTypes.SELECT, transaction },
    );
    if (!subject) return null;
    // Only what the exporting person may see (server/access/README.md "Ethical walls"): a client's export leaves out
    // its records on a case they are walled from, and its count and period say so by leaving them out too.
    const [span] = await queryRows<{ count: number; internalNotes: number; from: Date | null; to: Date | null }>(
      sql`SELECT count(*) FILTER (WHERE m.type = 'chat')::int AS count, count(*) FILTER (WHERE m.type = 'chat_note')::int AS "internalNotes",
              min(m.created_at) AS "from", max(m.created_at) AS "to"
       FROM communications m WHERE m.${raw(column)} = ${request.scope.id} AND ${EXPORTED_TYPES} AND ${visibleToExporter(request.user.id, sql`m`)}`,
      { transaction },
    );
    const [elsewhere] =
      request.scope.type === 'case'
        ? await queryRows<{ count: number }>(
            sql`SELECT count(*)::int AS count FROM communications m JOIN cases k ON k.id = ${request.scope.id}
             WHERE m.client_id = k.client_id AND m.type = 'chat' AND m.case_id IS DISTINCT FROM k.id
               AND ${visibleToExporter(request.user.id, sql`m`)}`,
            { transaction },
          )
        : [];
    const header: TExportHeader = {
      firm: request.firm,
      subject: { type: request.scope.type, ...subject },
      period: span?.from && span.to ? { from: new Date(span.from).toISOString(), to: new Date(span.to).toISOString() } : null,
      count: span?.count ?? 0,
      internalNotes: span?.internalNotes ?? 0,
      notOnCase: elsewhere?.count ?? null,
      exportedAt: request.now.toISOString(),
      exportedBy: request.user,
      auditHead: await readChainHead(db(), transaction).then(({ id, hash }) => ({ id, hash })),
      timeZone: await readFirmTimeZone(request.firmTimeZone, transaction),
    };
    const query = { column, id: request.scope.id, viewerId: request.user.id, transaction, signal: request.signal } as const;
    const pages = () => readPages(query);
    await write(header, pages(), { pages, exhibits: () => readExhibits(query), transaction });
    return header;
  });
}

/** The firm's one clock: its business hours' zone once a director saved them, else the configured zone. */
async function readFirmTimeZone(configured: string | undefined, transaction: Transaction): Promise<string> {
  const fallback = configured ?? DEFAULT_TIME_ZONE;
  const hours = await readBusinessHours(transaction, fallback);
  // Saved hours name a zone PostgreSQL knows; the PDF's clock is JavaScript's, which knew it when it was saved.
  return isKnownTimeZone(hours.timeZone) ? hours.timeZone : fallback;
}

type TPagesQuery = {
  column: 'client_id' | 'case_id';
  id: number;
  viewerId: number;
  transaction: Transaction;
  signal?: AbortSignal;
};

async function* readPages(query: TPagesQuery): AsyncIterable<TExportMessage[]> {
  let after: { at: string; id: number } | null = null;
  let exhibits = 0;
  for (;;) {
    query.signal?.throwIfAborted();
    const rows: TMessageRow[] = await queryRows<TMessageRow>(
      // The message answered is looked up for the page's rows only, by its provider id (one index
      // lookup each: communications_chat_msg_id_key), and quoted only when it is in this export too.
      // A reply to, or a resend of, a record behind a wall (server/access/README.md "Ethical walls") names nothing: its
      // replyTo and resentFrom are null, as for a message that is no reply, so the export does not
      // tell the record exists. One the exporter may see, or that is not stored at all, is named.
      sql`SELECT counted.*, (
         SELECT json_build_object('id', r.id, 'direction', r.direction, 'at', coalesce(r.provider_timestamp, r.created_at),
                  'excerpt', CASE WHEN r.body = '' THEN '(' || coalesce(r.metadata->>'kind', 'text') || ', no text)'
                                  WHEN length(r.body) > ${sqlInteger(QUOTE_EXCERPT_CHARACTERS)} THEN left(r.body, ${sqlInteger(QUOTE_EXCERPT_CHARACTERS - 1)}) || '…'
                                  ELSE r.body END)
         FROM communications r
         WHERE r.metadata->>'chat_msg_id' = counted."replyTo"
           AND r.${raw(query.column)} = ${query.id} AND ${exportedTypesOf(sql`r`)} AND ${visibleToExporter(query.viewerId, sql`r`)}
       ) AS quoted
       FROM (
         SELECT page.*, sum(page.bytes) OVER w AS "pageBytes", row_number() OVER w AS "pageRow", count(*) OVER () AS reached
         FROM (
       SELECT m.id, m.type = 'chat_note' AS internal, m.direction, coalesce(m.metadata->>'kind', 'text') AS kind,
              CASE WHEN u.id IS NULL THEN NULL ELSE json_build_object('id', u.id, 'name', u.name) END AS "sentBy",
              m.peer_phone AS "peerPhone", k.reference AS "caseReference",
              CASE WHEN m.type = 'chat' AND m.status IS DISTINCT FROM 'imported' THEN (SELECT json_build_object('id', f.id, 'phone', f.digits, 'label', f.label)
                                              FROM firm_numbers f WHERE f.id = m.firm_number_id) END AS "firmNumber", m.metadata->>'contact_name' AS "contactName", m.body,
              m.metadata->>'chat_msg_id' AS "chatMsgId", m.provider_timestamp AS "providerTime", m.created_at AS "storedTime", m.created_at::text AS "cursorAt",
              m.status, m.error, m.receipts, m.read_at AS "readByFirmAt",
              CASE WHEN NOT EXISTS (SELECT 1 FROM communications t WHERE t.metadata->>'chat_msg_id' = m.metadata->>'context_id'
                                      AND NOT ${visibleToExporter(query.viewerId, sql`t`)})
                   THEN m.metadata->>'context_id' END AS "replyTo",
              CASE WHEN jsonb_typeof(m.metadata->'buttons') = 'array' THEN m.metadata->'buttons' END AS buttons,
              CASE WHEN jsonb_typeof(m.metadata->'retry_of') = 'number' AND m.metadata->>'retry_of' ~ '^[0-9]{1,18}$' THEN
                CASE WHEN NOT EXISTS (SELECT 1 FROM communications t WHERE t.id = (m.metadata->>'retry_of')::bigint
                                        AND NOT ${visibleToExporter(query.viewerId, sql`t`)})
                     THEN (m.metadata->>'retry_of')::bigint END
              END AS "resentFrom",
              coalesce((m.metadata->>'forwarded')::boolean, false) AS forwarded, coalesce((m.metadata->>'echo')::boolean, false) AS "fromFirmPhone",
              CASE WHEN m.status = 'imported' THEN jsonb_build_object('statement', ${IMPORTED_STATEMENT}::text, 'importId', m.metadata->'imported'->'importId',
                'line', m.metadata->'imported'->'line', 'fileSha256', m.metadata->'imported'->'fileSha256', 'sender', m.metadata->'imported'->'sender') END AS imported,
              coalesce(m.metadata->'edits', '[]'::jsonb) AS edits, m.metadata->>'revoked_at' AS "revokedAt",
              coalesce(m.metadata->'reactions', '[]'::jsonb) AS reactions, m.metadata->'truncated' AS truncated,
              coalesce((SELECT json_agg(json_build_object('id', a.id, 'kind', a.kind, 'fileName', a.file_name, 'mimeType', a.mime_type, 'size', a.size, 'sha256', a.sha256, 'state', a.state,
                                                  'destroyed', ${DESTROYED_SQL}) ORDER BY a.id)
                        FROM attachments a WHERE a.communication_id = m.id), '[]'::json) AS attachments,
              octet_length(m.body) + octet_length(m.metadata::text) AS bytes
       FROM communications m LEFT JOIN users u ON u.id = m.sent_by LEFT JOIN cases k ON k.id = m.case_id
       WHERE m.${raw(query.column)} = ${query.id} AND ${EXPORTED_TYPES} AND ${visibleToExporter(query.viewerId, sql`m`)}
         ${after ? sql`AND (m.created_at, m.id) > (${after.at}::timestamptz, ${after.id})` : empty}
       ORDER BY m.created_at, m.id
       LIMIT ${sqlInteger(PAGE_SIZE)}
         ) page
         WINDOW w AS (ORDER BY page."storedTime", page.id)
       ) counted
       WHERE "pageBytes" <= ${sqlInteger(PAGE_BYTES)} OR "pageRow" = 1
       ORDER BY "storedTime", id`,
      { transaction: query.transaction },
    );
    if (rows.length === 0) return;
    yield rows.map(({ cursorAt: _cursor, reached: _reached, bytes: _bytes, pageBytes: _pageBytes, pageRow: _pageRow, ...row }) => ({
      ...row,
      attachments: row.attachments.map((file) => ({ ...file, exhibit: (exhibits += 1) })),
      quoted: row.quoted ? { ...row.quoted, at: new Date(row.quoted.at).toISOString() } : null,
      resentFrom: row.resentFrom === null ? null : Number(row.resentFrom),
      providerTime: row.providerTime ? new Date(row.providerTime).toISOString() : null,
      storedTime: new Date(row.storedTime).toISOString(),
      readByFirmAt: row.readByFirmAt ? new Date(row.readByFirmAt).toISOString() : null,
    }));
    if (rows.length === rows[0]!.reached && rows.length < PAGE_SIZE) return; // neither limit cut it: that was the last
    const last = rows[rows.length - 1]!;
    after = { at: last.cursorAt, id: last.id };
  }
}

/**
 * The files of the same messages, in the same order and numbering as `readPages` gives them (the
 * messages' stored time and id, then the file's id), a page at a time, for the PDF's index of
 * exhibits: one query per thousand files, without reading the messages' text again.
 */
async function* readExhibits(query: TPagesQuery): AsyncIterable<TExportExhibit[]> {
  let after: { at: string; messageId: number; id: number } | null = null;
  let exhibits = 0;
  for (;;) {
    query.signal?.throwIfAborted();
    const rows: (Omit<TExportExhibit, 'exhibit' | 'storedTime'> & { storedTime: Date; cursorAt: string })[] = await queryRows(
      sql`SELECT a.id, a.kind, a.file_name AS "fileName", a.mime_type AS "mimeType", a.size, a.sha256, a.state,
              ${DESTROYED_SQL} AS destroyed, m.id AS "messageId", m.created_at AS "storedTime", m.created_at::text AS "cursorAt"
       FROM communications m JOIN attachments a ON a.communication_id = m.id
       WHERE m.${raw(query.column)} = ${query.id} AND ${EXPORTED_TYPES} AND ${visibleToExporter(query.viewerId, sql`m`)}
         ${after ? sql`AND (m.created_at, m.id, a.id) > (${after.at}::timestamptz, ${after.messageId}, ${after.id})` : empty}
       ORDER BY m.created_at, m.id, a.id
       LIMIT ${sqlInteger(EXHIBIT_PAGE_SIZE)}`,
      { transaction: query.transaction },
    );
    if (rows.length === 0) return;
    yield rows.map(({ cursorAt: _cursor, ...row }) => ({
      ...row,
      size: row.size === null ? null : Number(row.size),
      exhibit: (exhibits += 1),
      storedTime: new Date(row.storedTime).toISOString(),
    }));
    if (rows.length < EXHIBIT_PAGE_SIZE) return;
    const last = rows[rows.length - 1]!;
    after = { at: last.cursorAt, messageId: last.messageId, id: last.id };
  }
}
