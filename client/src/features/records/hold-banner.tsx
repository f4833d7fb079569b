import { useId, useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { formatDate } from '../../lib/format';
import { trpc } from '../../lib/trpc';
import { ConfirmButton } from '../../ui/confirm-button';
import { FormSummary, useFormErrors } from '../../ui/field-error';
import { subjectHref, useReleaseHold, type THold } from './use-holds';

type TSubject = { clientId: number } | { caseId: number; clientId: number };

/** The hold a client's or case's page was read with (its `hold`): what everyone who may see it is told. */
export type THoldNotice = { since: Date; reason: string; placedBy: string | null; on: 'client' | 'case' };

/**
 * A client's or a case's legal hold (server/records/README.md "Records"): a banner while one is in force, and for
 * directors Place legal hold / Release hold with every hold listed. Staff see the page's own notice.
 */
export function HoldBanner({ subject, notice }: { subject: TSubject; notice: THoldNotice | null }) {
  const me = trpc.auth.me.useQuery(undefined, { staleTime: Infinity });
  if (me.data?.role === 'director') return <DirectorHoldBanner subject={subject} />;
  if (!notice) return null;
  const own = notice.on === ('caseId' in subject ? 'case' : 'client');
  return (
    <div className="hold-area">
      <div className="hold-banner" role="region" aria-label="Legal hold">
        <p className="hold-banner-text">
          <strong>
            {own ? 'On legal hold' : `On legal hold with its ${notice.on}`} since {formatDate(notice.since)}:
          </strong>{' '}
          {notice.reason} — placed by {notice.placedBy ?? 'someone no longer here'}
        </p>
      </div>
    </div>
  );
}

function DirectorHoldBanner({ subject }: { subject: TSubject }) {
  // A client's holds include its cases'; a case is covered by its own and by its client's.
  const holds = trpc.holds.list.useQuery({ clientId: subject.clientId });
  const onCase = 'caseId' in subject;
  const covering = (holds.data ?? []).filter((h) => (onCase ? h.subject.type === 'client' || h.subject.id === subject.caseId : true));
  const own = covering.filter((h) => (onCase ? h.subject.type === 'case' : h.subject.type === 'client'));
  const kind = onCase ? 'case' : 'client';
  if (holds.isPending) return null;
  return (
    <div className="hold-area">
      {covering.length > 0 && (
        <div className="hold-banner" role="region" aria-label="Legal hold">
          <ul className="hold-banner-list">
            {covering.map((hold) => (
              <HoldLine key={hold.id} hold={hold} kind={kind} />
            ))}
          </ul>
        </div>
      )}
      {holds.error && (
        <p className="form-error" role="alert">
          {holds.error.message}
        </p>
      )}
      {own.length === 0 && <PlaceHold subject={onCase ? { caseId: subject.caseId } : { clientId: subject.clientId }} kind={kind} />}
    </div>
  );
}

/** "On legal hold since …: reason — placed by …", saying whose hold it is when it is not this page's own. */
function HoldLine({ hold, kind }: { hold: THold; kind: 'client' | 'case' }) {
  const release = useReleaseHold();
  const own = hold.subject.type === kind;
  return (
    <li>
      <span className="hold-banner-text">
        <strong>
          {own ? 'On legal hold' : <>On legal hold with its {hold.subject.type} </>}
          {!own && <Link href={subjectHref(hold.subject)}>{hold.subject.label}</Link>} since {formatDate(hold.placedAt)}:
        </strong>{' '}
        {hold.reason} — placed by {hold.placedBy?.name ?? 'someone no longer here'}
      </span>
      <ConfirmButton
        label="Release hold"
        ariaLabel={`Release the hold on ${hold.subject.label}`}
        className="button small"
        question="Release it? Its records follow retention again."
        confirmLabel="Release"
        pending={release.isPending}
        onConfirm={() => release.mutate({ holdId: hold.id })}
      />
      {release.error && (
        <p className="form-error" role="alert">
          {release.error.message}
        </p>
      )}
    </li>
  );
}

function PlaceHold({ subject, kind }: { subject: { clientId: number } | { caseId: number }; kind: 'client' | 'case' }) {
  const utils = trpc.useUtils();
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const hint = useId();
  const place = trpc.holds.place.useMutation({
    onSuccess: () => {
      setOpen(false);
      setReason('');
      void utils.holds.list.invalidate();
    },
  });
  const { formRef, ...errors } = useFormErrors(place.error, ['reason']);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    place.mutate({ ...subject, reason });
  };
  if (!open)
    return (
      <button type="button" className="button small ghost place-hold" onClick={() => setOpen(true)}>
        Place legal hold
      </button>
    );
  return (
    <form className="hold-form" onSubmit={submit} aria-label="Place a legal hold" noValidate ref={formRef}>
      <div className="field">
        <label htmlFor={errors.inputId('reason')}>Reason for the hold</label>
        <input
          autoComplete="off"
          required
          maxLength={1000}
          placeholder="e.g. claim threatened by the landlord, letter of 3 March"
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          {...errors.field('reason')}
          aria-describedby={[errors.field('reason')['aria-describedby'], hint].filter(Boolean).join(' ')}
          autoFocus
        />
        <small id={hint} className="field-hint">
          Everything of this {kind}
          {kind === 'client' ? ' and its cases' : ''} is kept, whatever its age, until the hold is released.
        </small>
        {errors.message('reason')}
      </div>
      <FormSummary id={errors.summaryId} summary={errors.summary} />
      <div className="button-row">
        <button type="submit" className="button small primary" disabled={place.isPending}>
          {place.isPending ? 'Placing…' : 'Place legal hold'}
        </button>
        <button
          type="button"
          className="button small ghost"
          onClick={() => {
            setOpen(false);
            place.reset();
          }}
        >
          Cancel
        </button>
      </div>
    </form>
  );
}
