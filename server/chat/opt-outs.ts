import { QueryTypes, type Sequelize } from 'sequelize';
import { recordAuditEvent, SYSTEM_ACTOR, type TActor } from '../audit/record-audit-event';
import { matchOneClientSql } from './client-match';

// A client may ask to receive no more messages: the provider's user_preferences event (`stop`,
// then `resume`) or a text that is exactly STOP / UNSUBSCRIBE (START resumes). The matched client
// is marked (time and source kept); sends to them are refused by the server until it is cleared.

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

/** Applies the changes to the clients their numbers match (the inbound rule); the last per number wins. */
export async function applyOptOutChanges(sequelize: Sequelize, changes: TOptOutChange[]): Promise<number> {
  const last = [...new Map(changes.map((c) => [c.peerPhone, c])).values()];
  if (last.length === 0) return 0;
  return sequelize.transaction(async (transaction) => {
    const rows = await sequelize.query<{ id: number; optedOut: boolean; source: string; phone: string }>(
      `WITH input AS (
         SELECT u.*, ${matchOneClientSql('u.phone')} AS client_id
         FROM unnest($1::text[], $2::boolean[], $3::timestamptz[], $4::text[]) AS u(phone, opted_out, at, source)
       )
       UPDATE clients c
       SET opted_out_at = CASE WHEN i.opted_out THEN coalesce(c.opted_out_at, i.at, now()) END,
           opt_out_source = CASE WHEN i.opted_out THEN coalesce(c.opt_out_source, i.source) END,
           updated_at = now()
       FROM input i
       WHERE c.id = i.client_id AND (c.opted_out_at IS NULL) = i.opted_out
       RETURNING c.id, i.opted_out AS "optedOut", i.source, i.phone`,
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
      await recordAuditEvent(
        sequelize,
        {
          actor: SYSTEM_ACTOR,
          action: row.optedOut ? 'client.opt_out' : 'client.opt_in',
          subject: `client:${row.id}`,
          detail: { source: row.source, digits: row.phone },
        },
        transaction,
      );
    }
    return rows.length;
  });
}

/** A director clears an opt-out by hand (the client asked to resume another way). */
export async function clearOptOut(sequelize: Sequelize, clientId: number, actor: TActor): Promise<boolean> {
  return sequelize.transaction(async (transaction) => {
    const rows = await sequelize.query<{ id: number }>(
      'UPDATE clients SET opted_out_at = NULL, opt_out_source = NULL, updated_at = now() WHERE id = $1 AND opted_out_at IS NOT NULL RETURNING id',
      { bind: [clientId], type: QueryTypes.SELECT, transaction },
    );
    if (rows.length)
      await recordAuditEvent(
        sequelize,
        { actor, action: 'client.opt_in', subject: `client:${clientId}`, detail: { source: 'cleared by a director' } },
        transaction,
      );
    return rows.length > 0;
  });
}
