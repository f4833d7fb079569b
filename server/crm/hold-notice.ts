import { z } from 'zod';
import { empty, sql, type Sql } from '../core/sql';

// A live legal hold as a client's or case's page shows it to everyone who may see the matter
// (server/records/README.md "Records"); placing and releasing holds is the records feature's, for directors.

/** The earliest live hold covering a client or case: what its page says. */
export type THoldNotice = { since: Date; reason: string; placedBy: string | null; on: 'client' | 'case' };

/** SQL: the earliest live hold on the client, or (`caseId` given) on the case or its client, as json (both SQL expressions). */
export const holdNotice = (clientId: Sql, caseId?: Sql): Sql =>
  sql`(SELECT json_build_object('since', h.placed_at, 'reason', h.reason, 'placedBy', u.name, 'on', CASE WHEN h.case_id IS NULL THEN 'client' ELSE 'case' END)
    FROM legal_holds h LEFT JOIN users u ON u.id = h.placed_by
    WHERE h.released_at IS NULL AND (h.client_id = ${clientId}${caseId ? sql` OR h.case_id = ${caseId}` : empty})
    ORDER BY h.placed_at, h.id LIMIT 1)`;

export const toHoldNotice = (raw: unknown): THoldNotice | null => {
  if (!raw) return null;
  const hold = raw as { since: string; reason: string; placedBy: string | null; on: 'client' | 'case' };
  return { ...hold, since: new Date(hold.since) };
};

export const ZHoldNotice = z.object({
  since: z.date(),
  reason: z.string(),
  placedBy: z.string().nullable(),
  on: z.enum(['client', 'case']),
});
