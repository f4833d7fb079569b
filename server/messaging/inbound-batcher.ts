import { isDatabaseUnavailable } from '../core/db/database-errors';
import type { TInboundMessage } from './inbound-message';
import type { TStoredInbound } from './store-inbound';

type TSubmission = { texts: TInboundMessage[]; resolve: (rows: TStoredInbound[]) => void; reject: (error: unknown) => void };

/**
 * Group commit for inbound messages: deliveries that arrive while a write is in flight are
 * coalesced into the next multi-row INSERT. Each delivery still waits for its own rows to be
 * committed before it is answered, and learns exactly which of its messages were new.
 */
export class InboundBatcher {
  private readonly queue: TSubmission[] = [];
  private inFlight = 0;

  constructor(
    private readonly store: (texts: TInboundMessage[]) => Promise<TStoredInbound[]>,
    private readonly options: { maxInFlight?: number; maxRows?: number } = {},
  ) {}

  // One write in flight (the default) measured best: batches grow with load instead of
  // competing for the same summary rows and the commit-time NOTIFY lock (npm run bench).
  submit(texts: TInboundMessage[]): Promise<TStoredInbound[]> {
    if (texts.length === 0) return Promise.resolve([]);
    return new Promise((resolve, reject) => {
      this.queue.push({ texts, resolve, reject });
      this.drain();
    });
  }

  private drain(): void {
    const maxInFlight = this.options.maxInFlight ?? 1;
    const maxRows = this.options.maxRows ?? 1000;
    while (this.inFlight < maxInFlight && this.queue.length) {
      const batch: TSubmission[] = [];
      let rows = 0;
      while (this.queue.length && (batch.length === 0 || rows + this.queue[0]!.texts.length <= maxRows)) {
        const next = this.queue.shift()!;
        rows += next.texts.length;
        batch.push(next);
      }
      this.inFlight++;
      void this.flush(batch).finally(() => {
        this.inFlight--;
        this.drain();
      });
    }
  }

  private async flush(batch: TSubmission[]): Promise<void> {
    if (batch.length === 1) {
      const [only] = batch;
      await this.store(only!.texts).then(only!.resolve, only!.reject);
      return;
    }
    let stored: TStoredInbound[];
    try {
      stored = await this.store(batch.flatMap((s) => s.texts));
    } catch (error) {
      if (isDatabaseUnavailable(error)) {
        for (const s of batch) s.reject(error);
        return;
      }
      // Something in one delivery spoiled the shared statement: give each its own, so one bad
      // delivery cannot fail the others that happened to be batched with it.
      await Promise.all(batch.map((s) => this.store(s.texts).then(s.resolve, s.reject)));
      return;
    }
    // A message id new in this batch belongs to the first delivery that carried it.
    const byId = new Map(stored.map((row) => [row.chatMsgId, row]));
    for (const s of batch) {
      const mine: TStoredInbound[] = [];
      for (const text of s.texts) {
        const row = byId.get(text.chatMsgId);
        if (row) {
          mine.push(row);
          byId.delete(text.chatMsgId);
        }
      }
      s.resolve(mine);
    }
  }
}
