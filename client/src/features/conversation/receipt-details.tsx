import type { TChatStatus } from '../../../../shared/communication';
import { formatDateTime } from '../../lib/format';
import { STATUS_LABEL, StatusTicks } from '../../ui/status-ticks';

type TReceipt = { status: string; at: Date | null };

const timedOf = (receipts: TReceipt[]) => receipts.filter((r): r is { status: string; at: Date } => r.at !== null);

/**
 * The ticks as a button that shows when each receipt came (a tooltip is hover only: a keyboard, a
 * finger and a screen reader need a button). Without a receipt time there is nothing more to tell.
 */
export function ReceiptToggle({
  status,
  receipts,
  error,
  open,
  onToggle,
  listId,
}: {
  status: TChatStatus;
  receipts: TReceipt[];
  error: string | null;
  open: boolean;
  onToggle: () => void;
  listId: string;
}) {
  if (!timedOf(receipts).length) return <StatusTicks status={status} receipts={receipts} error={error} />;
  return (
    <button type="button" className="receipt-toggle" aria-expanded={open} aria-controls={listId} onClick={onToggle}>
      <StatusTicks status={status} receipts={receipts} error={error} />
      <span className="visually-hidden"> — receipt times</span>
    </button>
  );
}

/** When each receipt came, under the bubble's time line. */
export function ReceiptSteps({ receipts, id }: { receipts: TReceipt[]; id: string }) {
  return (
    <ul className="receipt-steps" id={id} aria-label="Receipt times">
      {timedOf(receipts).map((r) => (
        <li key={r.status}>
          {STATUS_LABEL[r.status as TChatStatus] ?? r.status} <time dateTime={r.at.toISOString()}>{formatDateTime(r.at)}</time>
        </li>
      ))}
    </ul>
  );
}
