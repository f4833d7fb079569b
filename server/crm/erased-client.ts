import { z } from 'zod';
import { sql, type Sql } from '../core/sql';

// An erased client is final (server/records/README.md "Records"): their page stays, read-only, saying how
// they were erased; nothing new is written about them, so nothing of theirs comes back after the certificate.

/** How a client was erased: at their request (with the request) or under the retention policy, and the batch whose certificate says so. */
export type TClientErasure = { by: 'request' | 'retention'; batchId: string; requestId: number | null };

export const ZClientErasure = z.object({ by: z.enum(['request', 'retention']), batchId: z.string(), requestId: z.number().nullable() });

/** SQL: the client's erasure as json (null while not erased): the batch that erased their name, and its request if any. */
export const clientErasure = (clientId: Sql): Sql =>
  sql`(SELECT json_build_object('by', CASE b.kind WHEN 'erasure' THEN 'request' ELSE 'retention' END, 'batchId', b.id,
            'requestId', (SELECT e.id FROM erasure_requests e WHERE e.batch_id = b.id ORDER BY e.id LIMIT 1))
     FROM retention_items i JOIN retention_batches b ON b.id = i.batch_id
     WHERE i.kind = 'client' AND i.item_id = ${clientId} AND i.erased_at IS NOT NULL ORDER BY i.erased_at DESC LIMIT 1)`;

export const toClientErasure = (raw: unknown): TClientErasure | null => (raw ? (raw as TClientErasure) : null);
