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

/**
 * The 24-hour window (SPEC §8): free text outside it may be refused by the provider. Not a live
 * region: a countdown that changes every 30 s must not be read out each time.
 */
export function ReplyWindow({ lastInboundAt, now: fixedNow }: { lastInboundAt: Date | null; now?: Date }) {
  const [tick, setTick] = useState(() => new Date());
  useEffect(() => {
    if (fixedNow) return;
    const timer = setInterval(() => setTick(new Date()), 30_000);
    return () => clearInterval(timer);
  }, [fixedNow]);
  const left = windowTimeLeft(lastInboundAt, fixedNow ?? tick);
  if (left !== null) {
    return (
      <p className="reply-window open">
        <span className="dot" aria-hidden="true" /> Reply window open: {formatDuration(left)} left
      </p>
    );
  }
  return (
    <p className="reply-window closed">
      <span className="dot" aria-hidden="true" />
      {lastInboundAt ? 'Outside the 24-hour window' : 'No message from this contact yet'}: free text may be rejected by the provider; a
      pre-approved template is needed to start the conversation.
    </p>
  );
}
