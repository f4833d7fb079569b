import { useMutation } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { formatDate } from '../../lib/format';
import { trpc, type TOutputs } from '../../lib/trpc';
import { QueryStatus } from '../../ui/query-status';
import { BatchOutcome, describeCounts, plural, useBatch, type TBatch } from './batch-view';
import { BatchHistory } from './batch-history';

type TPreview = TOutputs['retention']['preview'];

// The word typed to approve: destruction cannot be undone, so it is never one stray click or Enter.
const CONFIRM_WORD = 'destroy';

/**
 * Retention (server/records/README.md "Records"): what is due now, previewed only when asked (each preview is a new
 * batch that replaces the last), destroyed only after a typed confirmation, followed to its
 * certificate; and the batches before it.
 */
export function RetentionSection() {
  const utils = trpc.useUtils();
  // The vanilla client, not a cached query: a preview makes a batch, so it runs on this click only.
  const preview = useMutation({
    mutationFn: () => utils.client.retention.preview.query(),
    onSuccess: () => void utils.retention.batches.invalidate(),
  });
  return (
    <section className="card records-section" aria-labelledby="retention-title">
      <h2 id="retention-title">Retention</h2>
      <p className="muted">
        Records are kept for a set number of years after a case closed, or after a client&rsquo;s last activity, then destroyed. Nothing is
        destroyed until a director has seen what is due and approved it. A legal hold keeps what it covers, whatever its age.
      </p>
      <div className="button-row records-actions">
        <button type="button" className="button primary" onClick={() => preview.mutate()} disabled={preview.isPending}>
          {preview.isPending ? 'Looking for what is due…' : preview.data ? 'Preview again' : 'Preview what is due'}
        </button>
      </div>
      {preview.error && (
        <p className="form-error" role="alert">
          {preview.error.message}
        </p>
      )}
      {preview.data && !preview.isPending && <PreviewResult key={preview.data.batchId} preview={preview.data} />}
      <BatchHistory />
    </section>
  );
}

function PreviewResult({ preview }: { preview: TPreview }) {
  const due = preview.records + preview.files + preview.cases + preview.clients;
  const rule =
    preview.retentionYears !== null
      ? `kept ${plural(preview.retentionYears, 'year')} after a case closed or the client’s last activity${
          preview.cutoff ? ` (before ${formatDate(preview.cutoff)})` : ''
        }`
      : null;
  if (due === 0)
    return (
      <div className="records-empty" role="status">
        <p className="records-empty-title">Nothing is due for destruction.</p>
        {rule && <p className="muted">Every record is within its retention period: {rule}.</p>}
      </div>
    );
  return <BatchReview batchId={preview.batchId} rule={rule} />;
}

/** The batch's figures and its clients and cases, then its approval, then its progress and certificate. */
function BatchReview({ batchId, rule }: { batchId: string; rule: string | null }) {
  const batch = useBatch(batchId);
  return (
    <QueryStatus query={batch} loading="Listing the clients and cases…" padded={false}>
      {(b) => (
        <div className="retention-preview">
          {/* Once approved the figures are what was due, no longer what is. */}
          <p role="status" className="preview-summary">
            <strong>{describeCounts(b.counts)}</strong> {b.state === 'previewed' ? 'due' : 'were due'} for destruction
            {rule ? `: ${rule}` : ''}.
          </p>
          <BatchSubjects batch={b} />
          {b.state === 'previewed' ? (
            <DestroyForm batch={b} />
          ) : b.state === 'superseded' ? (
            <p className="notice">A newer preview replaced this one: review that one instead.</p>
          ) : (
            <BatchOutcome batchId={b.id} />
          )}
        </div>
      )}
    </QueryStatus>
  );
}

function BatchSubjects({ batch }: { batch: TBatch }) {
  if (!batch.subjects.length && !batch.hiddenSubjects) return null;
  return (
    <div className="batch-subjects">
      <h3>Clients and cases in it</h3>
      <ul className="subject-list" aria-label="Clients and cases due">
        {batch.subjects.map((s) => (
          <li key={`${s.kind}-${s.id}`} data-subject={`${s.kind}:${s.id}`}>
            <span className="subject-kind">{s.kind === 'client' ? 'Client' : 'Case'}</span>
            <Link href={`/${s.kind === 'client' ? 'clients' : 'cases'}/${s.id}`}>{s.label}</Link>
            {s.leftOut && <span className="badge muted-badge">Left out: {s.leftOut}</span>}
          </li>
        ))}
      </ul>
      {batch.hiddenSubjects > 0 && (
        <p className="muted small">
          and {plural(batch.hiddenSubjects, 'more')} in matters you may not see (their records are counted above).
        </p>
      )}
    </div>
  );
}

/** Approval after a typed word: the batch is destroyed for good, its certificate keeps only ids and fingerprints. */
function DestroyForm({ batch }: { batch: TBatch }) {
  const utils = trpc.useUtils();
  const [asking, setAsking] = useState(false);
  const [typed, setTyped] = useState('');
  const inputId = useId();
  const warningId = useId();
  const destroy = trpc.retention.destroy.useMutation({
    onSuccess: () => {
      void utils.retention.batch.invalidate({ batchId: batch.id });
      void utils.retention.batches.invalidate();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (typed.trim().toLowerCase() === CONFIRM_WORD) destroy.mutate({ batchId: batch.id });
  };
  if (!asking)
    return (
      <div className="button-row records-actions">
        <button type="button" className="button danger" onClick={() => setAsking(true)}>
          Destroy these records
        </button>
      </div>
    );
  return (
    <form className="destroy-confirm" onSubmit={submit} aria-label="Confirm the destruction">
      <p id={warningId} className="destroy-warning">
        <strong>This cannot be undone.</strong> {describeCounts(batch.counts)} are destroyed for good: texts, files, names and numbers. The
        record of each stays, with the date it was erased; the certificate keeps only ids and SHA-256 fingerprints.
      </p>
      <div className="field">
        <label htmlFor={inputId}>Type &ldquo;{CONFIRM_WORD}&rdquo; to confirm</label>
        <input
          id={inputId}
          autoComplete="off"
          spellCheck={false}
          value={typed}
          onChange={(e) => setTyped(e.target.value)}
          aria-describedby={warningId}
          autoFocus
        />
      </div>
      <div className="button-row">
        <button type="submit" className="button danger" disabled={typed.trim().toLowerCase() !== CONFIRM_WORD || destroy.isPending}>
          {destroy.isPending ? 'Approving…' : 'Destroy for good'}
        </button>
        <button
          type="button"
          className="button ghost"
          onClick={() => {
            setAsking(false);
            setTyped('');
            destroy.reset();
          }}
        >
          Keep them
        </button>
      </div>
      {destroy.error && (
        <p className="form-error" role="alert">
          {destroy.error.message}
        </p>
      )}
    </form>
  );
}
