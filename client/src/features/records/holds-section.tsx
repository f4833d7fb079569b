import { useId, useState } from 'react';
import { Link } from 'wouter';
import { formatDateTime } from '../../lib/format';
import { trpc } from '../../lib/trpc';
import { ConfirmButton } from '../../ui/confirm-button';
import { QueryStatus } from '../../ui/query-status';
import { subjectHref, useReleaseHold, type THold } from './use-holds';

/** Legal holds: every live one (and the released, when asked), each released from here after a second click. */
export function HoldsSection() {
  const [showReleased, setShowReleased] = useState(false);
  const holds = trpc.holds.list.useQuery({ includeReleased: showReleased });
  const switchHint = useId();
  return (
    <section className="card records-section" aria-labelledby="holds-title">
      <h2 id="holds-title">Legal holds</h2>
      <p className="muted">
        A hold keeps a client&rsquo;s or a case&rsquo;s records, whatever their age, until it is released: retention leaves them out and an
        erasure request is refused. Place one from the client&rsquo;s or the case&rsquo;s page.
      </p>
      <div className="access-switch-row records-actions">
        <button
          type="button"
          role="switch"
          className="switch"
          aria-checked={showReleased}
          aria-describedby={switchHint}
          onClick={() => setShowReleased(!showReleased)}
        >
          <span className="switch-track" aria-hidden="true">
            <span className="switch-thumb" />
          </span>
          Show released
        </button>
        <span id={switchHint} className="muted small">
          Released holds stay on the record.
        </span>
      </div>
      <QueryStatus query={holds} loading="Loading holds…" padded={false}>
        {(list) =>
          list.length === 0 ? (
            <p className="records-empty muted">{showReleased ? 'No hold has ever been placed.' : 'No legal hold is in force.'}</p>
          ) : (
            <ul className="hold-list" aria-label="Legal holds">
              {list.map((hold) => (
                <HoldRow key={hold.id} hold={hold} />
              ))}
            </ul>
          )
        }
      </QueryStatus>
    </section>
  );
}

function HoldRow({ hold }: { hold: THold }) {
  const release = useReleaseHold();
  return (
    <li className={`hold-row${hold.releasedAt ? ' released' : ''}`} data-hold={hold.id}>
      <div className="hold-main">
        <span className="hold-subject">
          <span className="subject-kind">{hold.subject.type === 'client' ? 'Client' : 'Case'}</span>
          <Link href={subjectHref(hold.subject)}>{hold.subject.label}</Link>
          {hold.releasedAt && <span className="badge muted-badge">Released</span>}
        </span>
        <span className="hold-reason">{hold.reason}</span>
        <span className="muted small">
          Placed by {hold.placedBy?.name ?? 'someone no longer here'} on {formatDateTime(hold.placedAt)}
          {hold.releasedAt && ` · released by ${hold.releasedBy?.name ?? 'someone no longer here'} on ${formatDateTime(hold.releasedAt)}`}
        </span>
      </div>
      {!hold.releasedAt && (
        <ConfirmButton
          label="Release"
          ariaLabel={`Release the hold on ${hold.subject.label}`}
          className="button small ghost"
          question="Release it? Its records follow retention again."
          confirmLabel="Release"
          pending={release.isPending}
          onConfirm={() => release.mutate({ holdId: hold.id })}
        />
      )}
      {release.error && (
        <p className="form-error hold-error" role="alert">
          {release.error.message}
        </p>
      )}
    </li>
  );
}
