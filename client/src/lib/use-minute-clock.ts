import { useSyncExternalStore } from 'react';

// One clock for the whole page, however many rows read it: the time, moved on once a minute while
// anything on screen shows a wait that grows ("Overdue · 12 min").
const MINUTE_MS = 60_000;
let now = Date.now();
const listeners = new Set<() => void>();
let timer: ReturnType<typeof setInterval> | null = null;

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  if (!timer) {
    now = Date.now();
    timer = setInterval(() => {
      now = Date.now();
      for (const l of listeners) l();
    }, MINUTE_MS);
  }
  return () => {
    listeners.delete(listener);
    if (!listeners.size && timer) {
      clearInterval(timer);
      timer = null;
    }
  };
}

/** The time in ms, as of the clock's last minute: the caller is drawn again each minute. */
export function useMinuteClock(): number {
  return useSyncExternalStore(subscribe, () => now);
}
