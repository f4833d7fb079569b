import { EventEmitter } from 'node:events';
import pg from 'pg';
import type { Transaction } from 'sequelize';
import type { TLogger } from '../core/logger';
import { db } from '../core/db/db';
import { raw, sql, sqlInteger, type Sql } from '../core/sql';
import { reportUnlessStopping } from '../core/stopping';

// The one place that announces chat changes. Writers publish the ids of the records they changed
// through PostgreSQL NOTIFY (often inside the writing statement itself, so it is delivered exactly
// when the change commits); every server instance LISTENs on its own connection, loads the
// records once and hands them to its live subscribers. Two instances on one database therefore
// both see every change.

export const CHAT_CHANNEL = 'firm_chat_changes';
const MAX_IDS_PER_NOTIFY = 500; // a NOTIFY payload must stay under 8000 bytes
/** A payload that is no list of ids: every live view reads everything again (a wall changed). */
export const RESYNC_PAYLOAD = '"resync"';
/** Some conversation's assignee or state changed: inbox lists read their conversations again. */
export const OWNERSHIP_PAYLOAD = '{"ownership":true}';
/** These people have new notifications: only their own streams are told. */
export const notifyPayload = (userIds: number[]): string => JSON.stringify({ notify: userIds });
/** Sessions ended or the sign-in policy changed (announced by the database's own triggers, migration 0034). */
export const SESSIONS_PAYLOAD = '{"sessions":true}';
/** The firm's numbers changed (announced by the database's own trigger, migration 0042): the webhook reads them again. */
export const NUMBERS_PAYLOAD = '{"numbers":true}';

/**
 * Puts one payload on the change feed: delivered when `transaction` commits (not at all if it
 * rolls back), or at once without one.
 */
export async function announce(payload: string, transaction?: Transaction): Promise<void> {
  await db().query('SELECT pg_notify($1, $2)', { bind: [CHAT_CHANNEL, payload], transaction });
}

/**
 * A CTE named "announced" that NOTIFYs the ids in `source` (a CTE with an `id` column, as
 * sql`changed`) in chunks that fit a NOTIFY payload. Reference it (SELECT count(*) FROM announced)
 * so it runs; it is delivered when the statement's transaction commits.
 */
export const announcedCte = (source: Sql): Sql => sql`announced AS (
  SELECT pg_notify('${raw(CHAT_CHANNEL)}', json_agg(id)::text)
  FROM (SELECT id, (row_number() OVER () - 1) / ${sqlInteger(MAX_IDS_PER_NOTIFY)} AS chunk FROM ${source}) AS numbered
  GROUP BY chunk
)`;

/**
 * What a live view is told: records changed (`items`), read everything again (`resync`), the
 * conversations' owners or states changed (`ownership`), or these people have new notifications
 * (`notify`: user ids; each stream passes on only whether its own person is among them).
 */
export type TChatChange<TItem> = { items: TItem[] } | { resync: true } | { ownership: true } | { notify: number[] };

export class ChatEvents<TItem extends { id: number } = { id: number }> {
  private readonly emitter = new EventEmitter();
  private listener: pg.Client | undefined;
  private stopped = false;
  private reconnectDelayMs = 500;
  private readonly pendingIds = new Set<number>();
  private loading: Promise<void> | undefined;

  constructor(
    private readonly options: {
      databaseUrl: string;
      logger: TLogger;
      loadItems: (ids: number[]) => Promise<TItem[]>;
    },
  ) {
    this.emitter.setMaxListeners(0); // every open live view listens
  }

  /** Connects the LISTEN connection; reconnects and resubscribes by itself when it drops. */
  async start(): Promise<void> {
    await this.connect();
  }

  /** Ends the LISTEN connection (the live streams are ended by LiveStreams.close). */
  async close(): Promise<void> {
    this.stopped = true;
    await this.listener?.end().catch(() => undefined);
  }

  /** Announces changed records (use when the write itself could not NOTIFY). */
  async publish(ids: number[]): Promise<void> {
    for (let i = 0; i < ids.length; i += MAX_IDS_PER_NOTIFY) await announce(JSON.stringify(ids.slice(i, i + MAX_IDS_PER_NOTIFY)));
  }

  /** Same as publish, but never throws: a missed live update must not fail a committed write. */
  publishQuietly(ids: number[]): void {
    if (ids.length === 0) return;
    this.publish(ids).catch((error: unknown) => this.options.logger.warn({ error: (error as Error).name }, 'chat change not announced'));
  }

  /** Called when sessions ended anywhere (or the policy changed): open live streams check theirs at once. */
  onSessionsChanged(listener: () => void): () => void {
    this.emitter.on('sessions', listener);
    return () => this.emitter.off('sessions', listener);
  }

  /** Called when the firm's numbers changed anywhere, or may have while the feed was away. */
  onNumbersChanged(listener: () => void): () => void {
    this.emitter.on('numbers', listener);
    return () => this.emitter.off('numbers', listener);
  }

  subscribe(listener: (change: TChatChange<TItem>) => void): () => void {
    this.emitter.on('change', listener);
    return () => this.emitter.off('change', listener);
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.options.databaseUrl });
    client.on('error', (error) => {
      reportUnlessStopping(
        () => this.options.logger.warn({ error: error.message }, 'chat change listener lost its connection'),
        () => this.options.logger.debug({ error: error.message }, 'chat change listener closed at shutdown'),
      );
    });
    client.on('end', () => {
      if (this.listener === client) this.listener = undefined;
      this.scheduleReconnect();
    });
    client.on('notification', (message) => this.dispatch(message.payload));
    await client.connect();
    await client.query(`LISTEN ${CHAT_CHANNEL}`);
    this.listener = client;
    this.reconnectDelayMs = 500;
  }

  private scheduleReconnect(): void {
    if (this.stopped) return;
    const delay = this.reconnectDelayMs;
    this.reconnectDelayMs = Math.min(this.reconnectDelayMs * 2, 10_000);
    setTimeout(() => {
      if (this.stopped) return;
      this.connect().then(
        // Changes committed while we were away were not heard: tell live views to refetch, and forget the numbers kept.
        () => {
          this.emitter.emit('numbers');
          this.emitter.emit('change', { resync: true });
        },
        () => this.scheduleReconnect(),
      );
    }, delay).unref();
  }

  /**
   * Group load: ids announced while a load is in flight wait and go in the next one, so under load
   * one query serves many announcements (batches grow with load), and changes are handed on in
   * the order they were loaded.
   */
  private dispatch(payload: string | undefined): void {
    if (payload === SESSIONS_PAYLOAD) {
      this.emitter.emit('sessions');
      return;
    }
    if (payload === NUMBERS_PAYLOAD) {
      this.emitter.emit('numbers');
      return;
    }
    if (this.emitter.listenerCount('change') === 0) return;
    if (payload === RESYNC_PAYLOAD) {
      this.emitter.emit('change', { resync: true });
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(payload ?? '[]');
    } catch {
      return;
    }
    if (!Array.isArray(parsed)) {
      this.dispatchSignal(parsed);
      return;
    }
    const ids = parsed.filter((v): v is number => Number.isInteger(v));
    for (const id of ids) this.pendingIds.add(id);
    if (!this.loading && this.pendingIds.size) this.loading = this.loadPending().finally(() => (this.loading = undefined));
  }

  /** An ownership change or new notifications: nothing to load, handed on as it came. */
  private dispatchSignal(parsed: unknown): void {
    if (typeof parsed !== 'object' || parsed === null) return;
    if ('ownership' in parsed) this.emitter.emit('change', { ownership: true });
    else if ('notify' in parsed && Array.isArray(parsed.notify)) {
      const users = parsed.notify.filter((v): v is number => Number.isInteger(v));
      if (users.length) this.emitter.emit('change', { notify: users });
    }
  }

  private async loadPending(): Promise<void> {
    while (this.pendingIds.size) {
      const ids = [...this.pendingIds];
      this.pendingIds.clear();
      try {
        const items = await this.options.loadItems(ids);
        if (items.length) this.emitter.emit('change', { items });
      } catch (error) {
        this.options.logger.warn({ error: (error as Error).name }, 'chat change could not be loaded');
        this.emitter.emit('change', { resync: true });
      }
    }
  }
}
