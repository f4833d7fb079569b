import { formatAhead, formatDateTime, formatWaited } from '../../lib/format';
import type { TThreadSummary } from '../../lib/trpc';
import { useOverdueWait } from './use-overdue';

/**
 * An inbox row's marks of ownership: overdue (the client wrote last, longer ago than the firm's
 * reply target: how long they have waited) and, in the snoozed list, when it comes back.
 */
export function ThreadMarkers({ thread }: { thread: TThreadSummary }) {
  const waited = useOverdueWait(thread);
  return (
    <>
      {waited !== null && thread.lastInboundAt && (
        <span className="overdue-mark" title={`Waiting for a reply since ${formatDateTime(thread.lastInboundAt)}`}>
          Overdue · {formatWaited(waited)}
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
