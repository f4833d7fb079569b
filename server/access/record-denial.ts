import { db } from '../core/db/db';
import { queryRows, sql } from '../core/sql';
import type { TReader } from '../core/visibility';

// What the trail records of a walled attempt (server/access/README.md "What the trail records"): a
// person's deliberate request, not the page around it catching up. Written off the request's path,
// so a walled answer takes the time a missing one does.

/** Which wall stopped them: a screen on the matter, or a restriction they are no member of. */
export type TWall = 'screen' | 'restriction';
/** What they tried: open a client's or a case's page, a conversation, a file, an export, or change something. */
export type TOpened = 'client' | 'case' | 'conversation' | 'file' | 'export' | 'change';

/**
 * The reads an open page makes around a record, by itself, on every refetch: lists, counts, people,
 * a client's cases, timelines, summaries, the access panel, marking a thread read. A walled one is
 * answered as missing and recorded nowhere; the read that opened the record is what is recorded.
 */
const QUIET_READS = new Set([
  'access.get',
  'access.forPerson',
  'cases.listForClient',
  'chat.scheduled',
  'clients.list',
  'erasure.list',
  'holds.list',
  'inbox.markRead',
  'inbox.people',
  'inbox.replyTarget',
  'inbox.search',
  'inbox.threadSummary',
  'inbox.threads',
  'inbox.unreadCount',
  'inbox.workload',
  'notifications.list',
  'notifications.unreadCount',
  'timeline.case',
  'timeline.client',
  'timeline.documents',
]);

const OPENS: Record<string, TOpened> = { 'clients.get': 'client', 'cases.get': 'case', 'inbox.thread': 'conversation' };

/**
 * What a request through `path` tried, or null when it is a quiet read. Plain routes name themselves
 * "GET /api/media/12"; every procedure not listed as quiet is a person's own request.
 */
export function openedBy(path: string): TOpened | null {
  if (QUIET_READS.has(path)) return null;
  if (OPENS[path]) return OPENS[path];
  if (/^(GET|HEAD) \/api\/media\//.test(path)) return 'file';
  if (/^(GET|HEAD|POST) \/api\/export\//.test(path)) return 'export';
  return 'change';
}

/** One row per person, record and way in within this window: a retry, a double click or a reload is the same attempt. */
const SAME_ATTEMPT = sql`interval '1 minute'`;

const pending = new Set<Promise<void>>();

/** Resolves when every denial noted so far is written (or given up): for shutdown and for tests. */
export async function denialsSettled(): Promise<void> {
  while (pending.size) await Promise.all([...pending]);
}

/**
 * Notes a walled attempt on the trail without making the request wait for it (its chained insert
 * waits for the trail's head and a commit to disk). Quiet reads note nothing.
 */
export function noteDenial(reader: TReader, subject: string, wall: TWall): void {
  const opened = openedBy(reader.path);
  if (!opened) return;
  // Begun on the loop's next turn, once the answer is written: building and sending its statements
  // in the request's own turn made a walled answer measurably slower than a missing one.
  const write = new Promise<void>((resolve) => setImmediate(resolve))
    .then(() => writeDenial(reader, subject, wall, opened))
    // A lost connection: one more try, then a warning naming the action only (never the subject's name).
    .catch(() => writeDenial(reader, subject, wall, opened))
    .catch((error: unknown) => {
      process.emitWarning(`access.denied not recorded: ${error instanceof Error ? error.message : String(error)}`);
    })
    .finally(() => pending.delete(write));
  pending.add(write);
}

/**
 * One statement under a lock on (person, subject): two requests at once cannot both find no
 * earlier attempt and both write.
 */
async function writeDenial(reader: TReader, subject: string, wall: TWall, opened: TOpened): Promise<void> {
  const detail = JSON.stringify({ path: reader.path, opened, wall });
  await db().transaction(async (transaction) => {
    await queryRows(sql`SELECT pg_advisory_xact_lock(hashtext('access.denied'), hashtext(${`${reader.id} ${subject}`}))`, { transaction });
    await queryRows(
      sql`INSERT INTO public.audit_events (user_id, action, subject, detail, ip)
          SELECT ${reader.id}::int, 'access.denied', ${subject}::text, ${detail}::jsonb, ${reader.ip}::text
          WHERE NOT EXISTS (SELECT 1 FROM public.audit_events e
            WHERE e.subject = ${subject}::text AND e.action = 'access.denied' AND e.user_id = ${reader.id}::int
              AND e.detail->>'path' = ${reader.path}::text AND e.at > now() - ${SAME_ATTEMPT})
          RETURNING id`,
      { transaction },
    );
  });
}
