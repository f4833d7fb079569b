import type { TLogger } from '../core/logger';
import { RESUMABLE_UPLOAD_TTL_MS } from '../media';
import { db } from '../core/db/db';
import { warnUnlessStopping } from '../core/stopping';

// Rows that only ever grow unless someone removes them: receipts kept for ids that never arrived,
// sign-in counters whose window has passed, expired sessions, files uploaded and never sent (unless a
// scheduled send holds them), resumable uploads never finished (their parts go with them). Deleting
// them is idempotent, so every instance may run this; it is cheap (indexed or small tables) and runs hourly.
const PRUNE_EVERY_MS = 60 * 60 * 1000;
const KEEP_UNMATCHED_RECEIPTS = '24 hours';
const KEEP_UNSENT_UPLOADS = '24 hours';

export async function pruneExpiredRows(): Promise<{
  receipts: number;
  rateLimits: number;
  sessions: number;
  uploads: number;
  resumableUploads: number;
  fileViews: number;
}> {
  const [rows] = await db().query(`
    WITH receipts AS (DELETE FROM chat_receipts WHERE created_at < now() - interval '${KEEP_UNMATCHED_RECEIPTS}' RETURNING 1),
         limits AS (DELETE FROM rate_limits WHERE expire IS NOT NULL AND expire < (extract(epoch FROM now()) * 1000)::bigint RETURNING 1),
         sessions AS (DELETE FROM sessions WHERE expires_at < now() RETURNING 1),
         -- An upload a scheduled send holds waits for its time, however far ahead (README "Scheduled sends").
         uploads AS (DELETE FROM attachments a WHERE a.communication_id IS NULL AND a.created_at < now() - interval '${KEEP_UNSENT_UPLOADS}'
                       AND NOT EXISTS (SELECT 1 FROM scheduled_sends s WHERE s.attachment_id = a.id AND s.state = 'scheduled')
                       -- An imported export is the client's record of where its messages came from; a preview left is not (its row goes with it).
                       AND NOT EXISTS (SELECT 1 FROM phone_imports i WHERE i.attachment_id = a.id AND i.state = 'committed') RETURNING 1),
         resumable AS (DELETE FROM resumable_uploads WHERE created_at < now() - ${RESUMABLE_UPLOAD_TTL_MS} * interval '1 millisecond' RETURNING 1),
         -- A day's mark only stops a second audit row that day (server/media/record-file-view.ts).
         views AS (DELETE FROM file_views WHERE day < (now() AT TIME ZONE 'UTC')::date - 7 RETURNING 1)
    SELECT (SELECT count(*) FROM receipts)::int AS receipts, (SELECT count(*) FROM limits)::int AS "rateLimits",
           (SELECT count(*) FROM sessions)::int AS sessions, (SELECT count(*) FROM uploads)::int AS uploads,
           (SELECT count(*) FROM resumable)::int AS "resumableUploads", (SELECT count(*) FROM views)::int AS "fileViews"`);
  return (rows as Awaited<ReturnType<typeof pruneExpiredRows>>[])[0]!;
}

/** Prunes now and every hour until the returned stop is called; failures are logged, never fatal. */
export function schedulePruning(logger: TLogger): () => void {
  const run = () =>
    pruneExpiredRows().then(
      (counts) => logger.debug(counts, 'pruned expired rows'),
      (error: unknown) => warnUnlessStopping(logger, { error: (error as Error).name }, 'pruning expired rows failed'),
    );
  void run();
  const timer = setInterval(() => void run(), PRUNE_EVERY_MS).unref();
  return () => clearInterval(timer);
}
