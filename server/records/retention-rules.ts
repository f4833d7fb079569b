import { sql, type Sql } from '../core/sql';
import { isClientHeld, isHeld } from './holds';

// What retention may destroy (server/records/README.md "Records"), as SQL conditions over a row alias (sql`c`) and a
// cutoff (RETENTION_YEARS before the batch was previewed; a value, sql`${cutoff}::timestamptz`). One
// rule, read twice: when a batch is previewed and again, row by row, as it is erased, so what changed
// in between (a hold, a reopened case, a client writing again) is left out rather than destroyed.
//
// - A record on a case is due when the case closed before the cutoff.
// - A record on no case is due when its client has had no activity since the cutoff and has no open case.
// - A case is due when it closed before the cutoff; a client when it dates from before the cutoff,
//   has no activity since, and every case of theirs is due or already erased.
// - Nothing a live hold covers is due. Records of a number linked to no client are not the
//   retention's: they belong to nobody the firm can date a relationship with.

export const recordDue = (c: Sql, cutoff: Sql): Sql => sql`(${c}.erased_at IS NULL AND ${c}.client_id IS NOT NULL
  AND CASE WHEN ${c}.case_id IS NOT NULL
        THEN EXISTS (SELECT 1 FROM cases rk WHERE rk.id = ${c}.case_id AND rk.status = 'closed' AND rk.closed_at < ${cutoff})
        ELSE NOT EXISTS (SELECT 1 FROM cases ro WHERE ro.client_id = ${c}.client_id AND ro.status = 'open')
          AND NOT EXISTS (SELECT 1 FROM communications ra WHERE ra.client_id = ${c}.client_id AND ra.created_at >= ${cutoff})
      END
  AND NOT ${isHeld(sql`${c}.client_id`, sql`${c}.case_id`)})`;

export const caseDue = (k: Sql, cutoff: Sql): Sql =>
  sql`(${k}.erased_at IS NULL AND ${k}.status = 'closed' AND ${k}.closed_at < ${cutoff} AND NOT ${isHeld(sql`${k}.client_id`, sql`${k}.id`)})`;

export const clientDue = (cl: Sql, cutoff: Sql): Sql => sql`(${cl}.erased_at IS NULL AND ${cl}.created_at < ${cutoff}
  AND NOT ${isClientHeld(sql`${cl}.id`)}
  AND NOT EXISTS (SELECT 1 FROM cases ck WHERE ck.client_id = ${cl}.id AND ck.erased_at IS NULL
                  AND NOT (ck.status = 'closed' AND ck.closed_at < ${cutoff}))
  AND NOT EXISTS (SELECT 1 FROM communications ca WHERE ca.client_id = ${cl}.id AND ca.created_at >= ${cutoff}))`;

/**
 * An erasure request's batch takes everything of its client, whatever its age; a hold, or a case of
 * theirs opened (or reopened) since the decision, still stops it.
 */
const noOpenCase = (clientId: Sql): Sql => sql`NOT EXISTS (SELECT 1 FROM cases eo WHERE eo.client_id = ${clientId} AND eo.status = 'open')`;
export const recordErasable = (c: Sql): Sql =>
  sql`(${c}.erased_at IS NULL AND ${noOpenCase(sql`${c}.client_id`)} AND NOT ${isHeld(sql`${c}.client_id`, sql`${c}.case_id`)})`;
export const caseErasable = (k: Sql): Sql =>
  sql`(${k}.erased_at IS NULL AND ${k}.status = 'closed' AND NOT ${isHeld(sql`${k}.client_id`, sql`${k}.id`)})`;
export const clientErasable = (cl: Sql): Sql =>
  sql`(${cl}.erased_at IS NULL AND ${noOpenCase(sql`${cl}.id`)} AND NOT ${isClientHeld(sql`${cl}.id`)})`;

/** The metadata an erased record keeps: provider ids and how it travelled, none of what it said. */
export const KEPT_METADATA_KEYS = [
  'chat_msg_id',
  'kind',
  'context_id',
  'retry_of',
  'resent_as',
  'echo',
  'echo_id',
  'test',
  'outcome',
  'forwarded',
  'voice',
  'revoked_at',
];
