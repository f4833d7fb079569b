import { sql, type Sql } from '../core/sql';
import { optOutChangeOfText, stopsNumber } from '../opt-outs';
import { outOfHoursReply } from './out-of-hours-sql';

// The out-of-hours reply (server/messaging/README.md "Business hours") is decided in the statement that stores a batch
// of inbound messages, so a message and its reply's place in the queue commit together or not at
// all, and a retried delivery (stored nothing new) asks for nothing. It is only queued here: the
// scheduled-sends worker sends it after the webhook has answered, never inside the request. It is
// decided at the client's time, not the delivery's: a message written while the firm was open but
// delivered after it closed is not answered "we are closed", nor is one delivered long after.

/** What the reply needs to know of a message about to be stored. */
export type TReplyCandidate = {
  chatMsgId: string;
  peerPhone: string;
  direction: 'inbound' | 'outbound';
  kind: string;
  body: string;
  providerTimestamp: Date | null;
  /** The same delivery held a STOP or START from this number's preferences. */
  askedToStopOrStart?: true;
};

/**
 * The ids of the messages that may be answered: a client's own (not an echo of what the firm sent
 * from its phone), from a number that sent no STOP or START in this batch, as a text or as a
 * preference of its delivery (ingest applies those
 * right after the batch is stored; a STOP must never be answered, and a number resuming is not
 * "out of hours" news). Reactions, edits, deletions and receipts are never messages here.
 */
export function listAutoReplyCandidates(messages: TReplyCandidate[]): string[] {
  const inbound = messages.filter((m) => m.direction === 'inbound');
  // As ingest reads them: only a text or a button's text can be a keyword.
  const asking = new Set(
    inbound
      .filter((m) => m.askedToStopOrStart || ((m.kind === 'text' || m.kind === 'button') && optOutChangeOfText(m) !== null))
      .map((m) => m.peerPhone),
  );
  return inbound.filter((m) => !asking.has(m.peerPhone)).map((m) => m.chatMsgId);
}

/** How old a message may be when it arrives and still be answered: a late delivery gets no "we are closed" (server/messaging/README.md "Business hours"). */
const ANSWERED_WITHIN = sql`interval '15 minutes'`;

/**
 * SQL: when the client wrote the stored row `s`, as far as the reply is concerned: the provider's
 * time on the message (the client's clock, not the delivery's), never later than now (a provider
 * clock ahead of ours does not make a message written in the future). A message without a provider
 * time (none given, or one not believed: milliseconds, before 2009) is NULL, so it is not answered:
 * its age cannot be known, and a reply to a stale message is the harm this rule prevents.
 */
// least() skips NULLs, so the NULL is kept by hand.
const writtenAt = (s: Sql): Sql => sql`CASE WHEN ${s}.provider_timestamp IS NOT NULL THEN least(${s}.provider_timestamp, now()) END`;

/**
 * CTEs (to follow others in a `WITH`) that queue the out-of-hours reply for the rows `stored` (a CTE
 * with `id`, `client_id`, `peer_phone`, `chat_msg_id`, `provider_timestamp`, as sql`inserted`) whose
 * ids are among `candidateIds` (`listAutoReplyCandidates`, bound as a text[]). Set-based: a message is answered when the firm
 * was out of hours when the client wrote it (its own time, in the firm's zone), and it is no older
 * than 15 minutes when it arrives (now). For each distinct number with such a message, when the
 * firm has a reply, the number is not opted out, and its mark is older than 12 hours (or absent),
 * the mark is claimed and one `auto_reply` row is queued, due now, for the client of its newest
 * such record. The claim is one upsert, so concurrent batches (on any instance) queue one reply
 * between them.
 */
export function autoReplyCtes(stored: Sql, candidateIds: string[]): Sql {
  return sql`auto_reply_to AS (
  SELECT DISTINCT ON (s.peer_phone) s.peer_phone AS digits, s.client_id, b.auto_reply
  FROM ${stored} s JOIN unnest(${candidateIds}::text[]) AS candidate(chat_msg_id) ON candidate.chat_msg_id = s.chat_msg_id
  CROSS JOIN LATERAL (SELECT ${writtenAt(sql`s`)} AS at) written
  JOIN business_hours b ON ${outOfHoursReply(sql`b`, sql`written.at`)}
  WHERE written.at >= now() - ${ANSWERED_WITHIN}
    AND NOT EXISTS (SELECT 1 FROM number_opt_outs o WHERE o.last9 = right(s.peer_phone, 9) AND ${stopsNumber(sql`o`, sql`s.peer_phone`)})
  ORDER BY s.peer_phone, s.id DESC
), auto_reply_claimed AS (
  INSERT INTO auto_reply_marks AS m (digits, last_at)
  SELECT digits, now() FROM auto_reply_to
  ON CONFLICT (digits) DO UPDATE SET last_at = now() WHERE m.last_at < now() - interval '12 hours'
  RETURNING m.digits
), auto_reply_queued AS (
  INSERT INTO scheduled_sends (kind, created_by, to_digits, client_id, body, send_at)
  SELECT 'auto_reply', NULL, r.digits, r.client_id, r.auto_reply, now()
  FROM auto_reply_claimed c JOIN auto_reply_to r ON r.digits = c.digits
  RETURNING id
)`;
}
