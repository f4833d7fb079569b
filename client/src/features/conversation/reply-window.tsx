import { useEffect, useState } from 'react';

export const WINDOW_MS = 24 * 60 * 60 * 1000;

/** Time left in the provider's 24-hour customer-service window, or null when it is closed. */
export function windowTimeLeft(lastInboundAt: Date | null, now: Date): number | null {
  if (!lastInboundAt) return null;
  const left = lastInboundAt.getTime() + WINDOW_MS - now.getTime();
  return left > 0 ? left : null;
}

export function formatDuration(ms: number): string {
  const minutes = Math.max(1, Math.floor(ms / 60_000));
  const hours = Math.floor(minutes / 60);
  return hours ? `${hours} h ${minutes % 60} min` : `${minutes} min`;
}

/** A link beside the window's line: the composer's way to or from the approved templates. */
type TAction = { label: string; onClick: () => void };

/**
 * The 24-hour window: free text outside it may be refused by the provider. One line, said once
 * (the composer below does not repeat it). Not a live region: a countdown that changes every 30 s
 * must not be read out each time.
 */
export function ReplyWindow({
  lastInboundAt,
  now: fixedNow,
  action,
  through = null,
  importedHistory = false,
}: {
  lastInboundAt: Date | null;
  /** The thread shows history imported from a phone's export: said, since it opens no window. */
  importedHistory?: boolean;
  now?: Date;
  action?: TAction | null;
  /** The firm's number the reply goes from, named when the firm has several: the window is that number's. */
  through?: string | null;
}) {
  const [tick, setTick] = useState(() => new Date());
  useEffect(() => {
    if (fixedNow) return;
    const timer = setInterval(() => setTick(new Date()), 30_000);
    return () => clearInterval(timer);
  }, [fixedNow]);
  const left = windowTimeLeft(lastInboundAt, fixedNow ?? tick);
  const link = action && (
    <>
      {' '}
      <button type="button" className="link-button" onClick={action.onClick}>
        {action.label}
      </button>
    </>
  );
  if (left !== null) {
    return (
      <p className="reply-window open">
        <span className="dot" aria-hidden="true" />
        <span>
          Reply window{through ? ` with ${through}` : ''} open: {formatDuration(left)} left{link && ' ·'}
          {link}
        </span>
      </p>
    );
  }
  return (
    <p className="reply-window closed">
      <span className="dot" aria-hidden="true" />
      <span>
        {lastInboundAt
          ? `Outside the 24-hour window${through ? ` with ${through}` : ''}`
          : `No message from this contact${through ? ` to ${through}` : ''} ${importedHistory ? 'through Firm Chat yet (history imported from a phone does not count)' : 'yet'}`}
        : free text may be refused; an approved template reaches them.
        {link}
      </span>
    </p>
  );
}
