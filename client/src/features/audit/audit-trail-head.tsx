import { useState } from 'react';
import { Link } from 'wouter';
import { describeCheckpoints } from '../../../../shared/audit/describe-checkpoints';
import { formatDateTime } from '../../lib/format';
import { trpc } from '../../lib/trpc';
import { writeAuditFilters } from './audit-filters';

const counted = new Intl.NumberFormat('en-GB');
const SHORT = 12;

/**
 * The chain's state at the top of the trail (server/records/README.md "Records"): its head — the event and hash an
 * export carries, what a regulator compares — and, for the directors who read this page, a check of
 * the whole chain. The check is itself recorded, so the list and the head are read again after it.
 */
export function AuditTrailHead() {
  const utils = trpc.useUtils();
  const head = trpc.audit.head.useQuery();
  // A query the button runs (never on its own, never retried: each run is an audited walk of the chain).
  const verify = trpc.audit.verify.useQuery(undefined, { enabled: false, retry: false, gcTime: 0, refetchOnWindowFocus: false });
  const [copied, setCopied] = useState<'copied' | 'refused' | null>(null);

  const runVerify = async () => {
    await verify.refetch();
    void utils.audit.head.invalidate();
    void utils.audit.list.invalidate();
  };
  const copyHash = async (hash: string) => {
    try {
      await navigator.clipboard.writeText(hash);
      setCopied('copied');
    } catch {
      setCopied('refused');
    }
    setTimeout(() => setCopied(null), 2500);
  };

  const check = verify.data;
  return (
    <section className="card audit-head" aria-labelledby="audit-head-title">
      <h2 id="audit-head-title" className="visually-hidden">
        The trail’s chain
      </h2>
      <div className="audit-head-row">
        <p className="audit-head-state">
          {head.isPending ? (
            <span className="muted">Reading the trail head…</span>
          ) : head.isError || !head.data ? (
            <span className="field-error">The trail head could not be read: {head.error?.message ?? 'no answer'}</span>
          ) : head.data.id === null ? (
            'The trail is empty.'
          ) : (
            <>
              Trail head: <Link href={`/audit${writeAuditFilters({ from: head.data.id })}`}>event #{head.data.id}</Link>
              {head.data.at && <span className="muted"> ({formatDateTime(head.data.at)})</span>} · hash{' '}
              <code className="audit-short-hash" title={head.data.hash}>
                {head.data.hash.slice(0, SHORT)}…
              </code>
            </>
          )}
        </p>
        <div className="button-row">
          {head.data?.id !== null && head.data && (
            <button
              type="button"
              className="button small ghost"
              aria-label="Copy the trail head’s full hash"
              onClick={() => void copyHash(head.data.hash)}
            >
              {copied === 'copied' ? 'Copied' : 'Copy hash'}
            </button>
          )}
          {/* aria-disabled, not disabled: the button keeps the focus while the check runs. */}
          <button
            type="button"
            className="button small primary"
            onClick={() => !verify.isFetching && void runVerify()}
            aria-disabled={verify.isFetching}
          >
            {verify.isFetching ? 'Verifying…' : 'Verify the trail'}
          </button>
        </div>
      </div>
      {copied === 'refused' && (
        <p className="field-error" role="alert">
          Copy is not allowed here: the full hash is {head.data?.hash}
        </p>
      )}
      <div className="audit-verify" aria-live="polite">
        {verify.isFetching ? (
          <p className="muted" role="status">
            Verifying… every event’s hash is computed again from its content and the one before it.
          </p>
        ) : verify.isError ? (
          <p className="form-error" role="alert">
            The trail could not be verified: {verify.error.message}
          </p>
        ) : check?.ok ? (
          <p className="audit-verified" role="status">
            Verified: {counted.format(check.rows)} {check.rows === 1 ? 'event' : 'events'}, unbroken
            {check.head.id !== null ? `, head #${check.head.id}` : ''}.
          </p>
        ) : check ? (
          <div className="form-error audit-broken" role="alert">
            The trail does not verify
            {check.firstBadId !== undefined
              ? ` at event #${check.firstBadId}`
              : check.checkpoints.firstBadId !== undefined
                ? ` at checkpoint #${check.checkpoints.firstBadId}`
                : ''}
            : {check.problem ?? 'a hash does not match'}.{' '}
            {check.firstBadId !== undefined && (
              <Link href={`/audit${writeAuditFilters({ from: check.firstBadId })}`}>Show the trail from event #{check.firstBadId}</Link>
            )}
          </div>
        ) : null}
        {/* The signed checkpoints (server/audit/audit-checkpoints.ts): what the database's owner cannot forge. */}
        {check && !verify.isFetching && !verify.isError && (
          <p className={check.checkpoints.ok ? 'audit-checkpoints muted' : 'audit-checkpoints form-error'}>
            {describeCheckpoints(check.checkpoints, formatDateTime, { withProblem: false })}
          </p>
        )}
      </div>
    </section>
  );
}
