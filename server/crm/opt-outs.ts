import { parsePhoneNumberFromString } from 'libphonenumber-js/min';
import { QueryTypes, type Transaction } from 'sequelize';
import { recordAuditEvent, SYSTEM_ACTOR, type TActor } from '../audit';
import { db } from '../core/db/db';

// A client may ask to receive no more messages: the provider's user_preferences event (`stop`,
// then `resume`) or a text that is exactly STOP / UNSUBSCRIBE (START resumes). The number is marked
// (time and source kept); every send to it is refused by the server until it is cleared.

export type TOptOutChange = { peerPhone: string; optedOut: boolean; at: Date | null; source: string };

// "Stop promotions" is the quick-reply button marketing templates carry.
const STOP_WORDS = new Set(['STOP', 'UNSUBSCRIBE', 'STOP PROMOTIONS']);
const START_WORDS = new Set(['START']);

/**
 * The keyword a text is, if any: compared as a person reads it — compatibility forms folded
 * (fullwidth ＳＴＯＰ), invisible characters and surrounding punctuation or quotes dropped ("STOP.",
 * "Stop!"), letters spaced out joined (S T O P). A text saying more than the keyword is not one.
 */
function keywordOf(body: string): string {
  const text = body
    .normalize('NFKC')
    .replace(/[\p{Cf}]/gu, '')
    .replace(/\s+/gu, ' ')
    .trim()
    .toUpperCase()
    .replace(/^[\p{P}\p{S} ]+|[\p{P}\p{S} ]+$/gu, '');
  return /^(\p{L} )+\p{L}$/u.test(text) ? text.replace(/ /g, '') : text;
}

/** The opt-out change an inbound text (or a button's text) asks for, if it is exactly one of the keywords. */
export function optOutChangeOfText(text: { peerPhone: string; body: string; providerTimestamp: Date | null }): TOptOutChange | null {
  const word = keywordOf(text.body);
  if (STOP_WORDS.has(word)) return { peerPhone: text.peerPhone, optedOut: true, at: text.providerTimestamp, source: `message "${word}"` };
  if (START_WORDS.has(word)) return { peerPhone: text.peerPhone, optedOut: false, at: text.providerTimestamp, source: `message "${word}"` };
  return null;
}

/**
 * Stores the changes against the numbers themselves (README "Sending messages", Opt-outs): a STOP
 * is kept for the number whatever clients have it — one, several (a shared phone) or none yet (a
 * number linked later is opted out already) — and START removes it. Per number the newest change by the
 * provider's time wins, whatever order the deliveries came in; a START older than the STOP it
 * would remove changes nothing (a late START must never reopen a number, where a late STOP only
 * keeps one closed). One audit event per client holding the number, or one for the number when no
 * client has it.
 */
/**
 * SQL: whether the opt-out row `optOut` stops sends to the digits `digits`: its own number, or
 * another spelling of it in the same country (the same calling code and last 9 digits: +54 9 11… and
 * +54 11… are one phone). Never across countries: +34 612 345 678 is not +33 612 345 678.
 */
export function stopsNumberSql(optOut: string, digits: string): string {
  return `(${optOut}.digits = ${digits} OR (${optOut}.last9 = right(${digits}, 9) AND ${optOut}.calling_code IS NOT NULL
           AND left(${digits}, length(${optOut}.calling_code)) = ${optOut}.calling_code))`;
}

/** The country calling code of stored digits ("54" for 5491112345678), or null when unknown. */
function callingCodeOf(digits: string): string | null {
  return parsePhoneNumberFromString(`+${digits}`)?.countryCallingCode ?? null;
}

export async function applyOptOutChanges(changes: TOptOutChange[]): Promise<number> {
  const byTime = [...changes].sort((a, b) => (a.at?.getTime() ?? Infinity) - (b.at?.getTime() ?? Infinity));
  const last = [...new Map(byTime.map((c) => [c.peerPhone, c])).values()].filter((c) => /^[0-9]{1,20}$/.test(c.peerPhone));
  if (last.length === 0) return 0;
  return db().transaction(async (transaction) => {
    const rows = await db().query<{ digits: string; optedOut: boolean; source: string; clientIds: number[] }>(
      `WITH input AS (
         SELECT * FROM unnest($1::text[], $2::boolean[], $3::timestamptz[], $4::text[], $5::text[]) AS u(digits, opted_out, at, source, calling_code)
       ), stopped AS (
         -- A later STOP moves the time on (a START must be newer than the newest STOP to clear it).
         INSERT INTO number_opt_outs AS o (digits, calling_code, at, source)
         SELECT digits, calling_code, coalesce(at, now()), source FROM input WHERE opted_out
         ON CONFLICT (digits) DO UPDATE SET at = excluded.at, source = excluded.source WHERE excluded.at > o.at
         RETURNING o.digits, o.last9, o.calling_code, true AS opted_out, o.source, (xmax = 0) AS is_new
       ), resumed AS (
         -- Provider times have whole seconds: within the same second, the one that came last stands.
         DELETE FROM number_opt_outs o USING input i
         WHERE o.digits = i.digits AND NOT i.opted_out AND coalesce(i.at, now()) >= o.at
         RETURNING o.digits, o.last9, o.calling_code, false AS opted_out, i.source, true AS is_new
       ), changed AS (SELECT * FROM stopped WHERE is_new UNION ALL SELECT * FROM resumed)
       SELECT ch.digits, ch.opted_out AS "optedOut", ch.source,
              coalesce((SELECT array_agg(DISTINCT n.client_id ORDER BY n.client_id) FROM client_numbers n
                        WHERE ${stopsNumberSql('ch', 'n.digits')}), '{}') AS "clientIds"
       FROM changed ch`,
      {
        bind: [
          last.map((c) => c.peerPhone),
          last.map((c) => c.optedOut),
          last.map((c) => c.at?.toISOString() ?? null),
          last.map((c) => c.source),
          last.map((c) => callingCodeOf(c.peerPhone)),
        ],
        type: QueryTypes.SELECT,
        transaction,
      },
    );
    for (const row of rows) {
      const subjects = row.clientIds.length ? row.clientIds.map((id) => `client:${id}`) : [`number:${row.digits}`];
      for (const subject of subjects) {
        await recordAuditEvent(
          {
            actor: SYSTEM_ACTOR,
            action: row.optedOut ? 'client.opt_out' : 'client.opt_in',
            subject,
            detail: { source: row.source, digits: row.digits },
          },
          transaction,
        );
      }
    }
    return rows.length;
  });
}

/**
 * The opt-out that stops sends to a number, if any: its own, or one from another spelling of it in
 * its country (stopsNumberSql). Erring this way refuses a send that might have gone; erring the
 * other way sends to someone who said STOP.
 */
export async function findNumberOptOut(digits: string, transaction?: Transaction): Promise<{ at: Date; source: string } | null> {
  const [row] = await db().query<{ at: Date; source: string }>(
    `SELECT at, source FROM number_opt_outs o WHERE o.last9 = right($1, 9) AND ${stopsNumberSql('o', '$1')} ORDER BY o.digits = $1 DESC, o.at LIMIT 1`,
    {
      bind: [digits],
      type: QueryTypes.SELECT,
      transaction,
    },
  );
  return row ?? null;
}

/** A director clears an opt-out by hand (the client asked to resume another way): every one of the client's numbers. */
export async function clearOptOut(clientId: number, actor: TActor): Promise<boolean> {
  return db().transaction(async (transaction) => {
    const rows = await db().query<{ digits: string }>(
      `DELETE FROM number_opt_outs o USING client_numbers n WHERE n.client_id = $1 AND ${stopsNumberSql('o', 'n.digits')} RETURNING o.digits`,
      { bind: [clientId], type: QueryTypes.SELECT, transaction },
    );
    if (rows.length)
      await recordAuditEvent(
        {
          actor,
          action: 'client.opt_in',
          subject: `client:${clientId}`,
          detail: { source: 'cleared by a director', digits: rows.map((r) => r.digits) },
        },
        transaction,
      );
    return rows.length > 0;
  });
}
