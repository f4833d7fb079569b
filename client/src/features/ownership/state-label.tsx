import { formatAhead, formatDateTime } from '../../lib/format';
import type { TThreadState } from './snooze-presets';

/** Where the conversation stands: Open, Done, or Snoozed until a time (the full moment on hover). */
export function StateLabel({ state, snoozedUntil }: { state: TThreadState; snoozedUntil: Date | null }) {
  if (state === 'snoozed' && snoozedUntil)
    return (
      <span className="state-label state-snoozed" title={formatDateTime(snoozedUntil)}>
        Snoozed until {formatAhead(snoozedUntil)}
      </span>
    );
  return <span className={`state-label state-${state}`}>{state === 'done' ? 'Done' : state === 'snoozed' ? 'Snoozed' : 'Open'}</span>;
}
