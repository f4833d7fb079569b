import { useId, useState } from 'react';
import { trpc } from '../../lib/trpc';
import { formatSoon } from '../../../../shared/zoned-time';
import { ScheduledItem } from './scheduled-item';
import { sortForList, type TScheduledSend } from './scheduled-send';
import { useFirmTimeZone, withZone } from './use-firm-time-zone';
import { useScheduledActions } from './use-scheduled-actions';
import { useScheduledSends } from './use-scheduled-sends';

/**
 * Above the composer: "2 scheduled · next Tue 09:00" (and how many were not sent, in red), which
 * opens the conversation's list — each with Edit, Reschedule and Cancel. Nothing when nothing waits.
 */
export function ScheduledStrip({ clientId, onEditAndSend }: { clientId: number; onEditAndSend: (item: TScheduledSend) => void }) {
  const me = trpc.auth.me.useQuery(undefined, { staleTime: Infinity }).data;
  const { items } = useScheduledSends(clientId);
  const { zone } = useFirmTimeZone();
  const actions = useScheduledActions();
  const [open, setOpen] = useState(false);
  const listId = useId();
  if (!items?.length || !zone || !me) return null;
  const sorted = sortForList(items);
  const waiting = sorted.filter((i) => i.state === 'scheduled');
  const notSent = sorted.length - waiting.length;
  const next = waiting[0];
  const summary = [
    waiting.length ? `${waiting.length} scheduled` : null,
    next ? `next ${withZone(formatSoon(next.sendAt, zone.timeZone), zone)}` : null,
  ].filter(Boolean);
  return (
    <section className={`scheduled-strip${notSent ? ' has-not-sent' : ''}`} aria-label="Scheduled messages">
      <button
        type="button"
        className="scheduled-toggle"
        aria-expanded={open}
        aria-controls={open ? listId : undefined}
        onClick={() => setOpen((o) => !o)}
      >
        <span className="scheduled-toggle-mark" aria-hidden="true">
          {open ? '▾' : '▸'}
        </span>
        <span className="scheduled-summary">
          {summary.join(' · ')}
          {notSent > 0 && (
            <span className="scheduled-not-sent-count">
              {summary.length ? ' · ' : ''}
              {notSent} not sent
            </span>
          )}
        </span>
      </button>
      {open && (
        <ul className="scheduled-list" id={listId} aria-label="Scheduled in this conversation">
          {sorted.map((item) => (
            <ScheduledItem key={item.id} item={item} zone={zone} me={me} actions={actions} onEditAndSend={onEditAndSend} />
          ))}
        </ul>
      )}
    </section>
  );
}
