import { useState } from 'react';
import { trpc } from '../../lib/trpc';
import { QueryStatus } from '../../ui/query-status';
import { ScheduledItem } from './scheduled-item';
import { sortForList } from './scheduled-send';
import { useFirmTimeZone } from './use-firm-time-zone';
import { useScheduledActions } from './use-scheduled-actions';
import { useScheduledSends } from './use-scheduled-sends';

/**
 * `/scheduled`: everything the signed-in person has scheduled, in every conversation — those not
 * sent first (with why), then those waiting, soonest first — each with a link to its conversation
 * and the same Edit, Reschedule and Cancel as in the conversation. A director may switch to
 * everyone's, each with its author.
 */
export function ScheduledPage() {
  const me = trpc.auth.me.useQuery(undefined, { staleTime: Infinity }).data;
  const isDirector = me?.role === 'director';
  const [everyone, setEveryone] = useState(false);
  const { query, items } = useScheduledSends(null, isDirector && everyone);
  const { zone, error } = useFirmTimeZone();
  const actions = useScheduledActions();
  const sorted = sortForList(items ?? []);
  const notSent = sorted.filter((i) => i.state === 'not_sent');
  const waiting = sorted.filter((i) => i.state === 'scheduled');
  return (
    <div className="page scheduled-page">
      <div className="page-header">
        <div>
          <h1>{isDirector && everyone ? 'Scheduled by everyone' : 'Scheduled'}</h1>
          <p className="muted">
            {isDirector && everyone
              ? 'Messages anyone in the firm chose to send later.'
              : 'Messages you chose to send later, in every conversation.'}{' '}
            Each goes at its time
            {zone?.label ? ` (${zone.label}, the firm's clock)` : ''}; one that cannot go then — the client&rsquo;s 24 hours have passed,
            they opted out, or it was not to go if they replied and they did — stays here with the reason, and you are told.
          </p>
        </div>
        {isDirector && (
          <div className="choice-toggle" role="group" aria-label="Whose scheduled messages">
            <button type="button" className="button small" aria-pressed={!everyone} onClick={() => setEveryone(false)}>
              Mine
            </button>
            <button type="button" className="button small" aria-pressed={everyone} onClick={() => setEveryone(true)}>
              Everyone&rsquo;s
            </button>
          </div>
        )}
      </div>
      <QueryStatus
        query={{
          isPending: query.isPending || (!zone && !error) || !me,
          isError: query.isError || error !== null,
          error: query.error ?? (error ? { message: error } : null),
          data: zone && me ? query.data : undefined,
          refetch: () => query.refetch(),
          isFetching: query.isFetching,
        }}
        loading="Loading what you scheduled…"
      >
        {() =>
          !zone || !me ? null : sorted.length === 0 ? (
            <p className="empty">
              Nothing scheduled. In a conversation, the clock beside <strong>Send</strong> sends a message later.
            </p>
          ) : (
            <div className="stack">
              {notSent.length > 0 && (
                <section className="card" aria-labelledby="scheduled-not-sent-title">
                  <h2 id="scheduled-not-sent-title">Not sent</h2>
                  <ul className="scheduled-list">
                    {notSent.map((item) => (
                      <ScheduledItem key={item.id} item={item} zone={zone} me={me} actions={actions} showClient />
                    ))}
                  </ul>
                </section>
              )}
              {waiting.length > 0 && (
                <section className="card" aria-labelledby="scheduled-waiting-title">
                  <h2 id="scheduled-waiting-title">Waiting to send</h2>
                  <ul className="scheduled-list">
                    {waiting.map((item) => (
                      <ScheduledItem key={item.id} item={item} zone={zone} me={me} actions={actions} showClient />
                    ))}
                  </ul>
                </section>
              )}
            </div>
          )
        }
      </QueryStatus>
    </div>
  );
}
