import { queryRows, sql } from '../core/sql';
import { visibleTo } from '../core/visibility';
import { everWrote, windowOpen } from './reply-window';
import { clientReplied } from './unless-replied';
import type { TScheduledTemplate } from './scheduled-inputs';

/** How long a worker holds a due row while it sends it; a crashed worker's row is due again after it. */
export const LEASE = sql`interval '2 minutes'`;

/** A due row, leased, with what its send depends on, asked in the statement that leased it. */
export type TDueSend = {
  id: number;
  kind: 'text' | 'template' | 'file' | 'auto_reply';
  authorId: number | null;
  authorName: string | null;
  authorRole: 'director' | 'staff' | null;
  /** The author's account was deactivated. */
  authorGone: boolean;
  /** The author may still see the client and case (server/access/README.md "Ethical walls"); true for the firm's own sends. */
  permitted: boolean;
  clientId: number | null;
  clientName: string | null;
  caseId: number | null;
  toDigits: string;
  body: string | null;
  template: TScheduledTemplate | null;
  attachmentId: number | null;
  /** The firm's number it goes from: the one chosen when it was scheduled, else the one `toDigits` last wrote to. */
  firmNumberId: number;
  /** That number's label when it was deactivated since (null: active). */
  firmNumberGone: string | null;
  /** The number wrote in the last 24 hours, so free text may go (true for a template or an automatic reply). */
  windowOpen: boolean;
  /** The number is still one the client's conversation may reply to (theirs, or one that wrote on their file). */
  numberTheirs: boolean;
  everWrote: boolean;
  /** It waits for no reply ("Don't send if they reply first") and the client wrote after it was scheduled. */
  clientReplied: boolean;
  /** Leases taken so far, this one included. */
  attempts: number;
};

/**
 * Leases up to `limit` due rows, soonest first (SKIP LOCKED: instances take different rows; a
 * leased row is not due again until its lease runs out), and returns them with their author, the
 * walls, the number's window, whether the number is still the client's and whether the client
 * replied since (for one that waits for no reply), in the same statement, so a send costs the queue
 * no query of its own before it goes (server/messaging/README.md "Scheduled sends").
 */
export async function leaseDueSends(limit: number): Promise<TDueSend[]> {
  const rows = await queryRows<TDueSend>(
    sql`WITH leased AS (
       UPDATE scheduled_sends s SET leased_until = now() + ${LEASE}, attempts = s.attempts + 1
       WHERE s.id IN (
         SELECT id FROM scheduled_sends
         WHERE state = 'scheduled' AND send_at <= now() AND (leased_until IS NULL OR leased_until < now())
         ORDER BY send_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
       RETURNING s.*)
     SELECT l.id, l.kind, l.created_by AS "authorId", u.name AS "authorName", u.role AS "authorRole",
            coalesce(u.deactivated_at IS NOT NULL, false) AS "authorGone",
            (l.created_by IS NULL OR ${visibleTo(sql`l.created_by`, sql`l.client_id`, sql`l.case_id`)}) AS permitted,
            l.client_id AS "clientId", c.name AS "clientName", l.case_id AS "caseId", l.to_digits AS "toDigits",
            l.body, l.template, l.attachment_id AS "attachmentId", l.attempts,
            f.id AS "firmNumberId", (SELECT n.label FROM firm_numbers n WHERE n.id = f.id AND NOT n.active) AS "firmNumberGone",
            w.open AS "windowOpen",
            -- As the composer offers numbers (replyNumbersOf, shared/phone.ts): one of the client's
            -- own, or one that wrote on their file and matches an own number by its last 9 digits.
            (l.client_id IS NULL
              OR EXISTS (SELECT 1 FROM client_numbers n WHERE n.client_id = l.client_id AND n.digits = l.to_digits)
              OR (EXISTS (SELECT 1 FROM client_numbers n WHERE n.client_id = l.client_id AND n.last9 = right(l.to_digits, 9))
                  AND EXISTS (SELECT 1 FROM communications m WHERE m.peer_phone = l.to_digits AND m.client_id = l.client_id
                                AND m.type = 'chat' AND m.direction = 'inbound' AND m.status IS DISTINCT FROM 'imported'))) AS "numberTheirs", CASE WHEN w.open THEN true ELSE ${everWrote(sql`l.to_digits`)} END AS "everWrote",
            ${clientReplied(sql`l`)} AS "clientReplied"
     FROM leased l
     -- Only free text and files wait for the window: a template reaches past it, and an automatic reply answers a message just in.
     CROSS JOIN LATERAL (SELECT coalesce(l.firm_number_id, (SELECT m.firm_number_id FROM communications m JOIN firm_numbers n ON n.id = m.firm_number_id AND n.active
         WHERE m.peer_phone = l.to_digits AND m.type = 'chat' AND m.direction = 'inbound' AND m.status IS DISTINCT FROM 'imported' ORDER BY m.created_at DESC LIMIT 1), 1) AS id) f
     CROSS JOIN LATERAL (SELECT CASE WHEN l.kind IN ('text', 'file') THEN ${windowOpen(sql`l.to_digits`, sql`now()`, sql`f.id`)} ELSE true END AS open) w
     LEFT JOIN users u ON u.id = l.created_by
     LEFT JOIN clients c ON c.id = l.client_id
     ORDER BY l.send_at, l.id`,
  );
  return rows.map((row) => ({ ...row, id: Number(row.id) }));
}
