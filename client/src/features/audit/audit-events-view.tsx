import { useMemo, useSyncExternalStore } from 'react';
import { formatDateTime } from '../../lib/format';
import type { TAuditItem } from './audit-actions';
import { addressOf, AuditSubject, EntryHash, ExportHash, VerifiedExport } from './audit-event-parts';
import { DatabaseConfirmations, foldConfirmations, type TFoldedEvent } from './database-confirmations';
import { describeAuditEvent } from './describe-audit-event';

// Five columns do not fit a phone: there each event is a short card (the sentence, when and from where, about what, its hash).
const NARROW = '(max-width: 640px)';
const subscribeToNarrow = (onChange: () => void) => {
  const query = window.matchMedia(NARROW);
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
};
const isNarrow = () => window.matchMedia(NARROW).matches;

function AuditEventCards({ items }: { items: TFoldedEvent[] }) {
  return (
    <ol className="audit-list" aria-label="Audit events, newest first">
      {items.map(({ event, confirmations }) => (
        <li key={event.id} data-action={event.action} data-event={event.id}>
          <p className="audit-sentence">
            {describeAuditEvent(event)}
            <VerifiedExport event={event} />
          </p>
          <DatabaseConfirmations confirmations={confirmations} />
          <div className="audit-list-line muted">
            <time dateTime={event.at.toISOString()}>{formatDateTime(event.at)}</time>
            {event.ip && <> · from {addressOf(event.ip)}</>}
          </div>
          {event.subjectLink && (
            <div className="audit-list-line">
              About <AuditSubject event={event} />
            </div>
          )}
          <div className="audit-list-line muted">
            Event #{event.id} · hash <EntryHash event={event} />
          </div>
          <ExportHash detail={event.detail} />
        </li>
      ))}
    </ol>
  );
}

function AuditEventTable({ items }: { items: TFoldedEvent[] }) {
  return (
    <table className="audit-table">
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">What happened</th>
          <th scope="col">About</th>
          <th scope="col">From</th>
          <th scope="col">Event</th>
        </tr>
      </thead>
      <tbody>
        {items.map(({ event, confirmations }) => (
          <tr key={event.id} data-action={event.action} data-event={event.id}>
            <td className="audit-when">
              <time dateTime={event.at.toISOString()}>{formatDateTime(event.at)}</time>
            </td>
            <td className="audit-sentence">
              {describeAuditEvent(event)}
              <VerifiedExport event={event} />
              <ExportHash detail={event.detail} />
              <DatabaseConfirmations confirmations={confirmations} />
            </td>
            <td className="audit-about-cell">
              <AuditSubject event={event} />
            </td>
            <td className="audit-ip">{event.ip ? addressOf(event.ip) : '—'}</td>
            <td className="audit-entry">
              #{event.id}
              <br />
              <EntryHash event={event} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The events of the trail loaded so far: a table, or cards on a narrow screen. */
export function AuditEvents({ items }: { items: TAuditItem[] }) {
  const narrow = useSyncExternalStore(subscribeToNarrow, isNarrow);
  const folded = useMemo(() => foldConfirmations(items), [items]);
  return narrow ? <AuditEventCards items={folded} /> : <AuditEventTable items={folded} />;
}
