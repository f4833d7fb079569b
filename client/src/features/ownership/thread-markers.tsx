import { formatAhead, formatDateTime, formatWaitedSince } from '../../lib/format';
import type { TThreadSummary } from '../../lib/trpc';

/**
 * An inbox row's marks of ownership: overdue (the client wrote last, longer ago than the firm's
 * reply target: how long they have waited) and, in the snoozed list, when it comes back.
 */
export function ThreadMarkers({ thread }: { thread: TThreadSummary }) {
  return (
    <>
      {thread.overdue && thread.lastInboundAt && (
        <span className="overdue-mark" title={`Waiting for a reply since ${formatDateTime(thread.lastInboundAt)}`}>
          Overdue · {formatWaitedSince(thread.lastInboundAt)}
        </span>
      )}
      {thread.state === 'snoozed' && thread.snoozedUntil && (
        <span className="snoozed-mark" title={formatDateTime(thread.snoozedUntil)}>
          Snoozed until {formatAhead(thread.snoozedUntil)}
        </span>
      )}
    </>
  );
}
