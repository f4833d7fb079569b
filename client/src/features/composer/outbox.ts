import { clear, createStore, del, get, set, values, type UseStore } from 'idb-keyval';
import { useMemo, useSyncExternalStore } from 'react';
import type { TThreadItem } from '../../lib/trpc';
import { isWorthRetrying, type TQueuedSend } from './queued-sends';

// The outbox: every message sent from this browser is written here before its request goes out and
// removed when the server has answered for it. What the server never answered (offline, a dropped
// connection, a closed tab) is sent when the connection is back — on the next load of the app too,
// by the same person. Kept in IndexedDB; where the browser refuses it, in memory for this page only.

/** What the runner needs from the app: the server calls and what to do with their answers. */
export type TOutboxRunner = {
  userId: number;
  /** The send itself, with its echo id; rejects with the server's answer or with no answer. */
  call: (entry: TQueuedSend) => Promise<TThreadItem>;
  onSent: (entry: TQueuedSend, record: TThreadItem) => void;
  onRefused: (entry: TQueuedSend, error: unknown) => void;
};

const LOCK = 'firm-chat-outbox';
const RETRY_FIRST_MS = 2_000;
const RETRY_MAX_MS = 30_000;

let store: UseStore | null | undefined;
/** The IndexedDB store, or null where the browser has none or refuses it. */
function outboxStore(): UseStore | null {
  if (store === undefined) {
    try {
      store = typeof indexedDB === 'undefined' ? null : createStore('firm-chat', 'outbox');
    } catch {
      store = null;
    }
  }
  return store;
}

// The sends of the person signed in, oldest first, as every component shows them.
let entries: TQueuedSend[] = [];
const listeners = new Set<() => void>();
let runner: TOutboxRunner | null = null;
let retryTimer: ReturnType<typeof setTimeout> | undefined;
let retryMs = RETRY_FIRST_MS;
let flushing = false;
let flushAgain = false;
/** Tells the app's other tabs that the outbox changed (one of them may be showing or sending it). */
let channel: BroadcastChannel | null = null;

function publish(next: TQueuedSend[]): void {
  entries = next.toSorted((a, b) => a.queuedAt - b.queuedAt);
  for (const listener of listeners) listener();
}

function announce(): void {
  channel?.postMessage('changed');
}

/** False when the browser refused to keep it (it then lives in this page's memory only). */
async function persist(entry: TQueuedSend): Promise<boolean> {
  const idb = outboxStore();
  if (!idb) return false;
  try {
    await set(entry.echoId, entry, idb);
    return true;
  } catch {
    return false;
  }
}

async function forget(echoId: string): Promise<void> {
  const idb = outboxStore();
  if (!idb) return;
  await del(echoId, idb).catch(() => undefined);
}

/** The stored copy of one send (another tab may have sent it meanwhile); the memory's where there is no store. */
async function readEntry(echoId: string): Promise<TQueuedSend | null> {
  const idb = outboxStore();
  const inMemory = entries.find((e) => e.echoId === echoId) ?? null;
  if (!idb) return inMemory;
  try {
    return (await get<TQueuedSend>(echoId, idb)) ?? null;
  } catch {
    return inMemory;
  }
}

async function readAll(): Promise<TQueuedSend[]> {
  const idb = outboxStore();
  if (!idb) return entries;
  try {
    return await values<TQueuedSend>(idb);
  } catch {
    return entries;
  }
}

/** Sends added in this page that are not (yet) in the store: a read of the store must not drop them. */
const unwritten = new Set<string>();

/** Reads the outbox again (at start, and when another tab changed it); others' sends are removed. */
async function reload(): Promise<void> {
  const active = runner;
  if (!active) return;
  const all = await readAll();
  // Another person signed in here since: their session in this browser is over, and so are their sends.
  await Promise.all(all.filter((e) => e.userId !== active.userId).map((e) => forget(e.echoId)));
  if (runner !== active) return;
  const mine = all.filter((e) => e.userId === active.userId);
  publish([...mine, ...entries.filter((e) => unwritten.has(e.echoId) && !mine.some((m) => m.echoId === e.echoId))]);
}

function withLock(work: () => Promise<void>): Promise<void> {
  const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
  // One tab at a time sends: each send is read again from the store inside the lock, so a send
  // another tab has just made is not made twice.
  return locks ? locks.request(LOCK, () => work()).then(() => undefined) : work();
}

function online(): boolean {
  return typeof navigator === 'undefined' || navigator.onLine;
}

function scheduleRetry(): void {
  clearTimeout(retryTimer);
  retryTimer = setTimeout(() => void flushOutbox(), retryMs);
  retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
}

function drop(echoId: string): void {
  unwritten.delete(echoId);
  publish(entries.filter((e) => e.echoId !== echoId));
}

/**
 * One send: 'done' (answered), or 'later' (no answer, or the server's "not now"). A send whose earlier
 * request got no answer is simply made again: the server answers a repeated echo id with the record
 * the first request made, whatever became of it, and sends nothing twice.
 */
async function attempt(active: TOutboxRunner, entry: TQueuedSend): Promise<'done' | 'later'> {
  const going: TQueuedSend = { ...entry, attempts: entry.attempts + 1 };
  await persist(going);
  if (runner !== active) {
    await forget(going.echoId); // signed out meanwhile: what was just written goes too
    return 'done';
  }
  publish(entries.map((e) => (e.echoId === going.echoId ? going : e)));
  let record: TThreadItem;
  try {
    record = await active.call(going);
  } catch (error) {
    if (isWorthRetrying(error)) return 'later';
    await forget(going.echoId);
    drop(going.echoId);
    active.onRefused(going, error);
    announce();
    return 'done';
  }
  await forget(going.echoId);
  drop(going.echoId);
  active.onSent(going, record);
  announce();
  return 'done';
}

async function drain(): Promise<void> {
  for (;;) {
    const active = runner;
    if (!active || !online()) return;
    const next = entries.find((e) => e.userId === active.userId);
    if (!next) return;
    const current = await readEntry(next.echoId);
    if (runner !== active) return;
    if (!current) {
      drop(next.echoId); // sent by another tab meanwhile
      continue;
    }
    if ((await attempt(active, current)) === 'later') {
      scheduleRetry();
      return;
    }
    retryMs = RETRY_FIRST_MS;
  }
}

/** Sends what waits, one at a time and in order, while there is a connection. */
export async function flushOutbox(): Promise<void> {
  if (flushing) {
    flushAgain = true;
    return;
  }
  flushing = true;
  try {
    do {
      flushAgain = false;
      await withLock(drain);
    } while (flushAgain);
  } finally {
    flushing = false;
  }
}

/** Keeps a send in the outbox (shown at once) and sends it when it can; resolves once it is kept. */
export async function enqueueSend(entry: TQueuedSend): Promise<void> {
  unwritten.add(entry.echoId);
  publish([...entries, entry]);
  if (await persist(entry)) unwritten.delete(entry.echoId);
  announce();
  void flushOutbox();
}

const onOnline = () => {
  retryMs = RETRY_FIRST_MS;
  void flushOutbox();
};

/** Starts sending for the person signed in (in the app's layout); the returned function stops it. */
export function startOutbox(next: TOutboxRunner): () => void {
  runner = next;
  if (typeof BroadcastChannel !== 'undefined') {
    channel = new BroadcastChannel(LOCK);
    channel.onmessage = () => void reload().then(flushOutbox);
  }
  window.addEventListener('online', onOnline);
  void reload().then(flushOutbox);
  return () => {
    if (runner === next) runner = null;
    window.removeEventListener('online', onOnline);
    clearTimeout(retryTimer);
    channel?.close();
    channel = null;
  };
}

/** Removes every queued send in this browser (sign-out, a session that ended). */
export async function forgetQueuedSends(): Promise<void> {
  runner = null;
  clearTimeout(retryTimer);
  unwritten.clear();
  publish([]);
  const idb = outboxStore();
  if (idb) await clear(idb).catch(() => undefined);
  announce();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Every send not yet answered (for leaving the page and signing out). */
export function useUnsentCount(): number {
  return useSyncExternalStore(subscribe, () => entries.length);
}

/** The sends of one conversation not yet answered, oldest first. */
export function useQueuedSends(threadKey: string): TQueuedSend[] {
  const all = useSyncExternalStore(subscribe, () => entries);
  return useMemo(() => all.filter((e) => e.threadKey === threadKey), [all, threadKey]);
}
