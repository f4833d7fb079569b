import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { recordAuditEvent, SYSTEM_ACTOR, type TActor } from '../audit/record-audit-event';

// A client may ask to receive no more messages: the provider's user_preferences event (`stop`,
// then `resume`) or a text that is exactly STOP / UNSUBSCRIBE (START resumes). The number is marked
// (time and source kept); every send to it is refused by the server until it is cleared.

export type TOptOutChange = { peerPhone: string; optedOut: boolean; at: Date | null; source: string };

const STOP_WORDS = new Set(['STOP', 'UNSUBSCRIBE']);
const START_WORDS = new Set(['START']);

/** The opt-out change an inbound text asks for, if it is exactly one of the keywords. */
export function optOutChangeOfText(text: { peerPhone: string; body: string; providerTimestamp: Date | null }): TOptOutChange | null {
  const word = text.body.trim().toUpperCase();
  if (STOP_WORDS.has(word)) return { peerPhone: text.peerPhone, optedOut: true, at: text.providerTimestamp, source: `message "${word}"` };
  if (START_WORDS.has(word)) return { peerPhone: text.peerPhone, optedOut: false, at: text.providerTimestamp, source: `message "${word}"` };
  return null;
}

/**
 * Stores the changes against the numbers themselves (README "Opt-outs"): a STOP is kept for the
 * number whatever clients have it — one, several (a shared phone) or none yet (a number linked
 * later is opted out already) — and START removes it. The last change per number wins. One audit
 * event per client holding the number, or one for the number when no client has it.
 */
export async function applyOptOutChanges(sequelize: Sequelize, changes: TOptOutChange[]): Promise<number> {
  const last = [...new Map(changes.map((c) => [c.peerPhone, c])).values()].filter((c) => /^[0-9]{1,20}$/.test(c.peerPhone));
  if (last.length === 0) return 0;
  return sequelize.transaction(async (transaction) => {
    const rows = await sequelize.query<{ digits: string; optedOut: boolean; source: string; clientIds: number[] }>(
      `WITH input AS (
         SELECT * FROM unnest($1::text[], $2::boolean[], $3::timestamptz[], $4::text[]) AS u(digits, opted_out, at, source)
       ), stopped AS (
         INSERT INTO number_opt_outs (digits, at, source)
         SELECT digits, coalesce(at, now()), source FROM input WHERE opted_out
         ON CONFLICT (digits) DO NOTHING
         RETURNING digits, true AS opted_out, source
       ), resumed AS (
         DELETE FROM number_opt_outs o USING input i
         WHERE o.digits = i.digits AND NOT i.opted_out
         RETURNING o.digits, false AS opted_out, i.source
       ), changed AS (SELECT * FROM stopped UNION ALL SELECT * FROM resumed)
       SELECT ch.digits, ch.opted_out AS "optedOut", ch.source,
              coalesce((SELECT array_agg(DISTINCT n.client_id ORDER BY n.client_id) FROM client_numbers n WHERE n.digits = ch.digits), '{}') AS "clientIds"
       FROM changed ch`,
      {
        bind: [
          last.map((c) => c.peerPhone),
          last.map((c) => c.optedOut),
          last.map((c) => c.at?.toISOString() ?? null),
          last.map((c) => c.source),
        ],
        type: QueryTypes.SELECT,
        transaction,
      },
    );
    for (const row of rows) {
      const subjects = row.clientIds.length ? row.clientIds.map((id) => `client:${id}`) : [`number:${row.digits}`];
      for (const subject of subjects) {
        await recordAuditEvent(
          sequelize,
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

/** The opt-out stored for a number, if it has one. */
export async function findNumberOptOut(
  sequelize: Sequelize,
  digits: string,
  transaction?: Transaction,
): Promise<{ at: Date; source: string } | null> {
  const [row] = await sequelize.query<{ at: Date; source: string }>('SELECT at, source FROM number_opt_outs WHERE digits = $1', {
    bind: [digits],
    type: QueryTypes.SELECT,
    transaction,
  });
  return row ?? null;
}

/** A director clears an opt-out by hand (the client asked to resume another way): every one of the client's numbers. */
export async function clearOptOut(sequelize: Sequelize, clientId: number, actor: TActor): Promise<boolean> {
  return sequelize.transaction(async (transaction) => {
    const rows = await sequelize.query<{ digits: string }>(
      `DELETE FROM number_opt_outs o USING client_numbers n WHERE n.client_id = $1 AND o.digits = n.digits RETURNING o.digits`,
      { bind: [clientId], type: QueryTypes.SELECT, transaction },
    );
    if (rows.length)
      await recordAuditEvent(
        sequelize,
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
