import type { TSimState, TWebhookRetry } from './sim-state';

// Retries of a webhook post the app did not take (no answer, or any status but 2xx), as the real
// provider retries for days: the same signed bytes again, each wait about twice the one before
// (with jitter) up to a cap, until the app takes it or the retry period since the first try is over.
// The app de-duplicates what arrives twice (server/webhook/README.md "The inbound webhook"), so a retry is always safe.

/** The first retry after about a second, then doubling up to 15 minutes between tries, for 7 days. */
export const WEBHOOK_RETRY_DEFAULTS = { baseMs: 1_000, capMs: 15 * 60 * 1000, forMs: 7 * 24 * 60 * 60 * 1000 };

/** Whether the app took a post: a 2xx answer (status 0: no answer at all). */
export function wasTaken(status: number): boolean {
  return status >= 200 && status < 300;
}

/**
 * The wait before retry number `retry` (1: the first): `baseMs`·2^(retry−1), at most `capMs`, then a
 * random point in its upper half, so posts refused together do not all come back at once.
 */
export function retryDelayMs(retry: number, baseMs: number, capMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.min(retry - 1, 40));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

function retriesOn(state: TSimState): boolean {
  return state.options.webhookRetries !== false && Boolean(state.options.webhookUrl);
}

/**
 * Tries a post again (`attempt` posts it, resolving with the status) until the app takes it, the
 * retry period runs out, retries are turned off, or the simulator closes. The settings are read
 * before each wait, so a running simulator can be changed (`POST /__sim/config`).
 */
export function retryUntilTaken(state: TSimState, attempt: () => Promise<number>): void {
  if (!retriesOn(state)) return;
  const firstAt = Date.now();
  let cancelled = false;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;
  const retry: TWebhookRetry = {
    cancel: () => {
      cancelled = true;
      clearTimeout(timer);
      wake?.();
    },
    done: Promise.resolve(),
  };
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      wake = resolve;
      timer = setTimeout(resolve, ms);
      timer.unref(); // a waiting retry never keeps a process alive
    });
  retry.done = (async () => {
    for (let n = 1; ; n++) {
      const { webhookRetryBaseMs, webhookRetryCapMs, webhookRetryForMs } = state.options;
      const wait = retryDelayMs(n, webhookRetryBaseMs ?? WEBHOOK_RETRY_DEFAULTS.baseMs, webhookRetryCapMs ?? WEBHOOK_RETRY_DEFAULTS.capMs);
      if (Date.now() + wait - firstAt > (webhookRetryForMs ?? WEBHOOK_RETRY_DEFAULTS.forMs)) return;
      await sleep(wait);
      if (cancelled || !retriesOn(state)) return;
      if (wasTaken(await attempt()) || cancelled) return;
    }
  })().finally(() => state.retries.delete(retry));
  state.retries.add(retry);
}

/** Resolves when no post is waiting for a retry (each taken, given up, turned off or cancelled). */
export async function settleRetries(state: TSimState): Promise<void> {
  while (state.retries.size) await Promise.allSettled([...state.retries].map((r) => r.done));
}

/** Drops every waiting retry (the simulator is closing): no timer is left behind. */
export function cancelRetries(state: TSimState): void {
  for (const retry of [...state.retries]) retry.cancel();
}
