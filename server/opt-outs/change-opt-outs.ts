import { parsePhoneNumberFromString } from 'libphonenumber-js/min';
import { recordAuditEvent, SYSTEM_ACTOR, type TActor } from '../audit';
import { db } from '../core/db/db';
import { queryRows, sql } from '../core/sql';
import type { TOptOutChange } from './opt-out-keywords';
import { stopsNumber } from './stops-number';

/** The country calling code of stored digits ("54" for 5491112345678), or null when unknown. */
function callingCodeOf(digits: string): string | null {
  return parsePhoneNumberFromString(`+${digits}`)?.countryCallingCode ?? null;
}

/**
 * Stores the changes against the numbers themselves (server/messaging/README.md "Sending messages", Opt-outs): a STOP
 * is kept for the number whatever clients have it — one, several (a shared phone) or none yet (a
 * number linked later is opted out already) — and START removes it. Per number the newest change by the
 * provider's time wins, whatever order the deliveries came in; a START older than the STOP it
 * would remove changes nothing (a late START must never reopen a number, where a late STOP only
 * keeps one closed). One audit event per client holding the number, or one for the number when no
 * client has it.
 */
export async function applyOptOutChanges(changes: TOptOutChange[]): Promise<number> {
  const byTime = [...changes].sort((a, b) => (a.at?.getTime() ?? Infinity) - (b.at?.getTime() ?? Infinity));
  const last = [...new Map(byTime.map((c) => [c.peerPhone, c])).values()].filter((c) => /^[0-9]{1,20}$/.test(c.peerPhone));
  if (last.length === 0) return 0;
  return db().transaction(async (transaction) => {
    const rows = await queryRows<{ digits: string; optedOut: boolean; source: string; clientIds: number[] }>(
      sql`WITH input AS (
         SELECT * FROM unnest(${last.map((c) => c.peerPhone)}::text[], ${last.map((c) => c.optedOut)}::boolean[],
           ${last.map((c) => c.at?.toISOString() ?? null)}::timestamptz[], ${last.map((c) => c.source)}::text[],
           ${last.map((c) => callingCodeOf(c.peerPhone))}::text[]) AS u(digits, opted_out, at, source, calling_code)
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
                        WHERE ${stopsNumber(sql`ch`, sql`n.digits`)}), '{}') AS "clientIds"
       FROM changed ch`,
      { transaction },
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

/** A director clears an opt-out by hand (the client asked to resume another way): every one of the client's numbers. */
export async function clearOptOut(clientId: number, actor: TActor): Promise<boolean> {
  return db().transaction(async (transaction) => {
    const rows = await queryRows<{ digits: string }>(
      sql`DELETE FROM number_opt_outs o USING client_numbers n WHERE n.client_id = ${clientId} AND ${stopsNumber(sql`o`, sql`n.digits`)} RETURNING o.digits`,
      { transaction },
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
