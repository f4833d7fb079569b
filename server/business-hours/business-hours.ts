import { QueryTypes, type Transaction } from 'sequelize';
import { recordAuditEvent, type TActor, type TAuditDetail } from '../audit';
import { db } from '../core/db/db';
import { AppError } from '../core/errors';
import { queryRows, sql } from '../core/sql';
import {
  DEFAULT_TIME_ZONE,
  TIME_ZONE_REFUSAL,
  type TBusinessHours,
  type TBusinessHoursInput,
  type TOpening,
} from './business-hours-schema';
import { openAt } from './out-of-hours-sql';

// The firm's hours are one row (migration 0021): no row means none were ever set, and the answer is
// the default. Saves are serialised, so each audit event describes the change from the row it replaced.

// Any constant works; it only has to be the same for every instance.
const SAVE_LOCK_KEY = 7_340_021;

type TRow = Omit<TBusinessHours, 'hoursSet' | 'updatedBy'> & { updatedById: number | null; updatedByName: string | null };

const SELECT_HOURS = sql`
  SELECT b.time_zone AS "timeZone",
         coalesce((SELECT jsonb_agg(o ORDER BY (o->>'day')::int, o->>'opens', o->>'closes') FROM jsonb_array_elements(b.week) o), '[]') AS week,
         ARRAY(SELECT to_char(d, 'YYYY-MM-DD') FROM unnest(b.closed_dates) d ORDER BY d) AS "closedDates",
         b.auto_reply AS "autoReply",
         CASE WHEN jsonb_array_length(b.week) > 0 THEN ${openAt(sql`b`)} END AS "openNow",
         b.updated_at AS "updatedAt", u.id AS "updatedById", u.name AS "updatedByName"
  FROM business_hours b LEFT JOIN users u ON u.id = b.updated_by`;

async function readRow(transaction?: Transaction): Promise<TRow | null> {
  const [row] = await queryRows<TRow>(SELECT_HOURS, { transaction });
  return row ?? null;
}

/**
 * The firm's hours and out-of-hours reply, or the default when none were set: no hours, no reply, and
 * the configured zone (FIRM_TIME_ZONE), so the firm has one clock before a director saves hours.
 */
export async function readBusinessHours(transaction?: Transaction, defaultZone = DEFAULT_TIME_ZONE): Promise<TBusinessHours> {
  const row = await readRow(transaction);
  if (!row) {
    return {
      hoursSet: false,
      timeZone: defaultZone,
      week: [],
      closedDates: [],
      autoReply: null,
      openNow: null,
      updatedAt: null,
      updatedBy: null,
    };
  }
  const { updatedById, updatedByName, ...hours } = row;
  return { ...hours, hoursSet: true, updatedBy: updatedById === null ? null : { id: updatedById, name: updatedByName ?? '' } };
}

/**
 * The zone as PostgreSQL spells it, or a field error: the rule is evaluated by PostgreSQL, which
 * must know the zone by name (not an abbreviation or a POSIX offset, which it would read otherwise).
 */
async function resolveTimeZone(name: string, transaction: Transaction): Promise<string> {
  const [zone] = await db().query<{ name: string }>(
    // Not an abbreviation as well (CET, EET, MET, WET, EST…): AT TIME ZONE reads those as a fixed
    // offset all year, where the browser keeps the zone's summer time. UTC and GMT are the same either way.
    `SELECT name FROM pg_timezone_names WHERE lower(name) = lower($1)
       AND (upper($1) IN ('UTC', 'GMT') OR NOT EXISTS (SELECT 1 FROM pg_timezone_abbrevs a WHERE lower(a.abbrev) = lower($1)))
     ORDER BY name = $1 DESC LIMIT 1`,
    { bind: [name], type: QueryTypes.SELECT, transaction },
  );
  if (!zone) throw new AppError('INVALID_INPUT', TIME_ZONE_REFUSAL, { timeZone: [TIME_ZONE_REFUSAL] });
  return zone.name;
}

const describeOpening = (o: TOpening) => `${o.day} ${o.opens}-${o.closes}`;

/** What a save changed, for the trail: never the reply's words (they are the firm's, but the trail records acts), only its length. */
function describeChanges(
  before: TRow | null,
  after: { timeZone: string; week: TOpening[]; closedDates: string[]; autoReply: string | null },
) {
  const detail: Omit<TAuditDetail<'settings.business_hours'>, 'first'> = {};
  if (!before || before.timeZone !== after.timeZone) detail.timeZone = { from: before?.timeZone ?? null, to: after.timeZone };
  const weekBefore = (before?.week ?? []).map(describeOpening);
  const weekAfter = after.week.map(describeOpening);
  if (!before || weekBefore.join() !== weekAfter.join()) detail.week = { from: before ? weekBefore : null, to: weekAfter };
  const datesBefore = new Set(before?.closedDates ?? []);
  const datesAfter = new Set(after.closedDates);
  const added = after.closedDates.filter((d) => !datesBefore.has(d));
  const removed = [...datesBefore].filter((d) => !datesAfter.has(d));
  if (added.length || removed.length) detail.closedDates = { added, removed };
  if (!before || before.autoReply !== after.autoReply) {
    detail.autoReply = {
      from: before?.autoReply ? { length: before.autoReply.length } : null,
      to: after.autoReply ? { length: after.autoReply.length } : null,
    };
  }
  return Object.keys(detail).length ? { first: !before, ...detail } : null;
}

/**
 * Saves the firm's hours and reply (a director, checked by the router), audited as
 * `settings.business_hours` with what changed. A save that changes nothing writes nothing.
 */
export async function saveBusinessHours(actor: TActor, input: TBusinessHoursInput): Promise<TBusinessHours> {
  const week = [...input.week].sort((a, b) => a.day - b.day || a.opens.localeCompare(b.opens) || a.closes.localeCompare(b.closes));
  const closedDates = [...new Set(input.closedDates)].sort();
  return db().transaction(async (transaction) => {
    const timeZone = await resolveTimeZone(input.timeZone, transaction);
    await db().query('SELECT pg_advisory_xact_lock($1)', { bind: [SAVE_LOCK_KEY], transaction });
    const before = await readRow(transaction);
    const after = { timeZone, week, closedDates, autoReply: input.autoReply };
    const changes = describeChanges(before, after);
    if (!changes) return readBusinessHours(transaction);
    await db().query(
      `INSERT INTO business_hours (singleton, time_zone, week, closed_dates, auto_reply, updated_by, updated_at)
       VALUES (true, $1, $2::jsonb, $3::date[], $4, $5, now())
       ON CONFLICT (singleton) DO UPDATE SET time_zone = excluded.time_zone, week = excluded.week, closed_dates = excluded.closed_dates,
         auto_reply = excluded.auto_reply, updated_by = excluded.updated_by, updated_at = excluded.updated_at`,
      {
        bind: [
          timeZone,
          JSON.stringify(week.map(({ day, opens, closes }) => ({ day, opens, closes }))),
          closedDates,
          input.autoReply,
          actor.userId,
        ],
        transaction,
      },
    );
    await recordAuditEvent({ actor, action: 'settings.business_hours', subject: 'business_hours', detail: changes }, transaction);
    return readBusinessHours(transaction);
  });
}
