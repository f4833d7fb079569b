import type { Transaction } from 'sequelize';
import { recordAuditEvent, type TActor } from '../audit';
import { db } from '../core/db/db';
import { AppError } from '../core/errors';
import { queryRows, sql } from '../core/sql';
import type { TAddWordingInput, TUpdateWordingInput, TWording } from './wording-schema';

// The firm's wording, one row each (migration 0038). Every change is audited by its title, never its
// body (server/wording/README.md "Firm wording"): the trail records acts, not the firm's words.

const SUBJECT = 'wording';
const NOT_FOUND = 'That wording is no longer there: it may have been removed.';

const SELECT = sql`SELECT w.id, w.title, w.body, w.updated_at AS "updatedAt",
    CASE WHEN u.id IS NULL THEN NULL ELSE json_build_object('id', u.id, 'name', u.name) END AS "updatedBy"
  FROM firm_wording w LEFT JOIN users u ON u.id = coalesce(w.updated_by, w.created_by)`;

async function readOne(id: number, transaction: Transaction): Promise<TWording> {
  const [row] = await queryRows<TWording>(sql`${SELECT} WHERE w.id = ${id}`, { transaction });
  if (!row) throw new AppError('NOT_FOUND', NOT_FOUND);
  return row;
}

/** Every piece of the firm's wording, in the order it was added (the built-in list first). */
export function listWording(): Promise<TWording[]> {
  return queryRows<TWording>(sql`${SELECT} ORDER BY w.id`);
}

/**
 * One title names one piece of wording (the composer's picker lists them by title): another with the
 * same title, whatever its case, is refused. Taken under a lock, so two directors cannot both add it.
 */
async function assertTitleFree(title: string, exceptId: number | null, transaction: Transaction): Promise<void> {
  await queryRows(sql`SELECT pg_advisory_xact_lock(hashtext('firm_wording.title'))`, { transaction });
  const [taken] = await queryRows(
    sql`SELECT 1 FROM firm_wording WHERE lower(title) = lower(${title}) AND id IS DISTINCT FROM ${exceptId}::int`,
    { transaction },
  );
  if (taken)
    throw new AppError('CONFLICT', `There is already wording called “${title}”: give this one another title.`, {
      title: ['another wording has this title'],
    });
}

/** A new piece of wording (a director, checked by the router), audited as `wording.add`. */
export function addWording(actor: TActor, input: TAddWordingInput): Promise<TWording> {
  return db().transaction(async (transaction) => {
    await assertTitleFree(input.title, null, transaction);
    const [row] = await queryRows<{ id: number }>(
      sql`INSERT INTO firm_wording (title, body, created_by) VALUES (${input.title}, ${input.body}, ${actor.userId}) RETURNING id`,
      { transaction },
    );
    const wordingId = row!.id;
    await recordAuditEvent({ actor, action: 'wording.add', subject: SUBJECT, detail: { wordingId, title: input.title } }, transaction);
    return readOne(wordingId, transaction);
  });
}

/** A changed title or body, audited as `wording.update` with what changed; a change that changes nothing writes nothing. */
export function updateWording(actor: TActor, input: TUpdateWordingInput): Promise<TWording> {
  return db().transaction(async (transaction) => {
    const [before] = await queryRows<{ title: string; body: string }>(
      sql`SELECT title, body FROM firm_wording WHERE id = ${input.id} FOR UPDATE`,
      { transaction },
    );
    if (!before) throw new AppError('NOT_FOUND', NOT_FOUND);
    const title = input.title ?? before.title;
    const body = input.body ?? before.body;
    const changed = [...(title !== before.title ? ['title' as const] : []), ...(body !== before.body ? ['body' as const] : [])];
    if (!changed.length) return readOne(input.id, transaction);
    if (changed.includes('title')) await assertTitleFree(title, input.id, transaction);
    await db().query('UPDATE firm_wording SET title = $1, body = $2, updated_by = $3, updated_at = now() WHERE id = $4', {
      bind: [title, body, actor.userId, input.id],
      transaction,
    });
    const detail = { wordingId: input.id, title, changed, ...(title !== before.title ? { from: before.title } : {}) };
    await recordAuditEvent({ actor, action: 'wording.update', subject: SUBJECT, detail }, transaction);
    return readOne(input.id, transaction);
  });
}

/** Takes a piece of wording off the list (a message it was inserted in keeps its text), audited as `wording.remove`. */
export function removeWording(actor: TActor, id: number): Promise<{ id: number }> {
  return db().transaction(async (transaction) => {
    const [row] = await queryRows<{ title: string }>(sql`DELETE FROM firm_wording WHERE id = ${id} RETURNING title`, { transaction });
    if (!row) throw new AppError('NOT_FOUND', NOT_FOUND);
    await recordAuditEvent({ actor, action: 'wording.remove', subject: SUBJECT, detail: { wordingId: id, title: row.title } }, transaction);
    return { id };
  });
}
