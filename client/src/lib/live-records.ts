import { useSyncExternalStore } from 'react';
import type { TThreadItem } from './trpc';

// The latest version of records changed lately, for screens that follow one record outside any
// list (Settings' test send): its receipt may come before the screen has the record's id.
const LATEST_KEPT = 200;
const latestById = new Map<number, TThreadItem>();
const recordListeners = new Set<() => void>();

/** Keeps what a live update brought, for `useLiveRecord`. */
export function noteLiveRecords(items: TThreadItem[]): void {
  for (const item of items) {
    latestById.delete(item.id);
    latestById.set(item.id, item);
  }
  while (latestById.size > LATEST_KEPT) latestById.delete(latestById.keys().next().value!);
  for (const listener of recordListeners) listener();
}

/** The newest version of record `id` that a live update brought, or undefined. */
export function useLiveRecord(id: number | null): TThreadItem | undefined {
  return useSyncExternalStore(
    (listener) => {
      recordListeners.add(listener);
      return () => recordListeners.delete(listener);
    },
    () => (id === null ? undefined : latestById.get(id)),
  );
}
