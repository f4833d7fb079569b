import type { TChatStatus } from '../../../shared/communication';
import { formatDateTime } from '../lib/format';

export const STATUS_LABEL: Record<TChatStatus, string> = {
  pending: 'Sending',
  sent: 'Sent',
  delivered: 'Delivered',
  read: 'Read',
  failed: 'Failed',
  imported: "Imported from the phone's export",
};

type TProps = {
  status: TChatStatus;
  receipts?: { status: string; at: Date | null }[];
  error?: string | null;
};

function describe(status: TChatStatus, receipts: TProps['receipts'], error: string | null | undefined): string {
  const steps = (receipts ?? [])
    .filter((r) => r.at)
    .map((r) => `${STATUS_LABEL[r.status as TChatStatus] ?? r.status} ${formatDateTime(r.at!)}`);
  if (status === 'failed' && error) steps.push(error);
  return steps.length ? steps.join(' · ') : STATUS_LABEL[status];
}

/**
 * Outbound delivery state, as a chat app shows it: a clock while pending, one grey tick for sent, two grey for
 * delivered, two blue for read, a red mark for failed. The label is the text alternative; the
 * tooltip lists when each receipt came.
 */
export function StatusTicks({ status, receipts, error }: TProps) {
  const label = STATUS_LABEL[status];
  return (
    <span className={`ticks ticks-${status}`} role="img" aria-label={label} title={describe(status, receipts, error)} data-status={status}>
      <svg viewBox="0 0 18 12" width="18" height="12" aria-hidden="true" focusable="false">
        {status === 'pending' && (
          <g fill="none" stroke="currentColor" strokeWidth="1.4">
            <circle cx="9" cy="6" r="4.6" />
            <path d="M9 3.4V6l1.8 1.2" strokeLinecap="round" />
          </g>
        )}
        {status === 'sent' && (
          <path
            d="M3 6.5l2.6 2.6L11 3.4"
            fill="none"
            stroke="currentColor"
            strokeWidth="1.6"
            strokeLinecap="round"
            strokeLinejoin="round"
          />
        )}
        {(status === 'delivered' || status === 'read') && (
          <g fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" strokeLinejoin="round">
            <path d="M1.5 6.5l2.6 2.6L9.5 3.4" />
            <path d="M7.4 8.6l.5.5 5.4-5.7" />
          </g>
        )}
        {status === 'imported' && (
          <path
            d="M9 1.5v6.2M6.3 5.2L9 7.9l2.7-2.7M4 10.5h10"
            fill="none"
            stroke="currentColor"
            strokeWidth="1.5"
            strokeLinecap="round"
            strokeLinejoin="round"
          />
        )}
        {status === 'failed' && (
          <g fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round">
            <circle cx="9" cy="6" r="4.6" />
            <path d="M9 3.6v3M9 8.4v.1" />
          </g>
        )}
      </svg>
    </span>
  );
}

export const UNKNOWN_LABEL = 'May not have been sent';

/** In place of the ticks: neither sent nor failed, as far as anyone knows (the provider's answer was lost). */
export function UnknownMark() {
  return (
    <span className="ticks ticks-unknown" role="img" aria-label={UNKNOWN_LABEL} title={UNKNOWN_LABEL} data-status="unknown">
      <svg viewBox="0 0 18 12" width="18" height="12" aria-hidden="true" focusable="false">
        <g fill="none" stroke="currentColor" strokeWidth="1.5" strokeLinecap="round">
          <circle cx="9" cy="6" r="4.6" />
          <path d="M7.6 4.6a1.5 1.5 0 1 1 1.9 1.5c-.4.1-.5.4-.5.8M9 8.6v.1" />
        </g>
      </svg>
    </span>
  );
}
