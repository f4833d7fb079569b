import { useId, useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { formatDate, formatDateTime } from '../../lib/format';
import { trpc, type TInputs, type TOutputs } from '../../lib/trpc';
import { FormSummary, useFormErrors } from '../../ui/field-error';
import { QueryStatus } from '../../ui/query-status';
import { useToast } from '../../ui/toasts';
import { BatchOutcome } from './batch-view';

type TRequest = TOutputs['erasure']['list'][number];
type TGround = NonNullable<TInputs['erasure']['decide']['grounds']>;

/** The grounds the law gives for keeping records, as a person reads them, with the article. */
export const GROUND_LABEL: Record<TGround, string> = {
  legal_claims: 'Needed for legal claims — GDPR Art. 17(3)(e)',
  legal_obligation: 'A legal obligation to keep it — Art. 17(3)(b)',
  hold: 'A legal hold covers it',
};

/** Today as the date field writes it (local, YYYY-MM-DD): the default, and the latest allowed. */
function todayIso(): string {
  const now = new Date();
  return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
}

/** A date field's day as local midnight: today's is never in the future, which the server refuses. */
function dateOfIso(value: string): Date {
  const [y, m, d] = value.split('-').map(Number);
  return new Date(y!, m! - 1, d);
}

/** Erasure requests (server/records/README.md "Records"): recorded with the day received, then erased or refused on fixed grounds. */
export function ErasureSection() {
  const requests = trpc.erasure.list.useQuery();
  return (
    <section className="card records-section" aria-labelledby="erasure-title">
      <h2 id="erasure-title">Erasure requests</h2>
      <p className="muted">
        A client may ask for their records to be erased. Record the request on the day it came, then decide: erase everything of theirs
        (with a certificate), or refuse on the grounds the law gives for keeping it.
      </p>
      <RequestForm />
      <h3 id="erasure-list-title">Requests</h3>
      <QueryStatus query={requests} loading="Loading requests…" padded={false}>
        {(list) =>
          list.length === 0 ? (
            <p className="records-empty muted">No erasure request has been recorded.</p>
          ) : (
            <ul className="request-list" aria-labelledby="erasure-list-title">
              {list.map((request) => (
                <RequestRow key={request.id} request={request} />
              ))}
            </ul>
          )
        }
      </QueryStatus>
    </section>
  );
}

function RequestForm() {
  const utils = trpc.useUtils();
  const toast = useToast();
  const clients = trpc.clients.list.useQuery();
  const today = todayIso();
  const [clientId, setClientId] = useState('');
  const [received, setReceived] = useState(today);
  const [note, setNote] = useState('');
  const record = trpc.erasure.request.useMutation({
    onSuccess: () => {
      toast('success', 'The request is recorded: decide it below.');
      setClientId('');
      setReceived(todayIso());
      setNote('');
      void utils.erasure.list.invalidate();
    },
  });
  const { formRef, ...errors } = useFormErrors(record.error, ['clientId', 'receivedAt', 'note']);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    record.mutate({ clientId: Number(clientId), receivedAt: dateOfIso(received || today), note });
  };
  return (
    <form className="request-form" onSubmit={submit} aria-labelledby="request-form-title" noValidate ref={formRef}>
      <h3 id="request-form-title">Record a request</h3>
      <div className="request-fields">
        <div className="field">
          <label htmlFor={errors.inputId('clientId')}>Client</label>
          <select required value={clientId} onChange={(e) => setClientId(e.target.value)} {...errors.field('clientId')}>
            <option value="">Choose a client…</option>
            {clients.data?.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
          {errors.message('clientId')}
        </div>
        <div className="field">
          <label htmlFor={errors.inputId('receivedAt')}>Date received</label>
          <input
            type="date"
            required
            max={today}
            value={received}
            onChange={(e) => setReceived(e.target.value)}
            {...errors.field('receivedAt')}
          />
          {errors.message('receivedAt')}
        </div>
        <div className="field request-note">
          <label htmlFor={errors.inputId('note')}>Note</label>
          <input
            autoComplete="off"
            maxLength={2000}
            placeholder="e.g. by email to the office"
            value={note}
            onChange={(e) => setNote(e.target.value)}
            {...errors.field('note')}
          />
          {errors.message('note')}
        </div>
      </div>
      <FormSummary id={errors.summaryId} summary={errors.summary} />
      <button type="submit" className="button primary" disabled={!clientId || record.isPending || received > today}>
        {record.isPending ? 'Recording…' : 'Record the request'}
      </button>
      {received > today && (
        <p className="field-error" role="alert">
          The date received cannot be in the future.
        </p>
      )}
    </form>
  );
}

function RequestRow({ request }: { request: TRequest }) {
  return (
    <li className={`request-row${request.decision ? ' decided' : ''}`} data-request={request.id}>
      <div className="request-main">
        <span className="request-client">
          {request.client.erased ? (
            <span>{request.client.name}</span>
          ) : (
            <Link href={`/clients/${request.client.id}`}>{request.client.name}</Link>
          )}
        </span>
        <span className="muted small">
          Received {formatDate(request.receivedAt)} · recorded by {request.recordedBy?.name ?? 'someone no longer here'} on{' '}
          {formatDateTime(request.recordedAt)}
        </span>
        <Deadline request={request} />
        {request.note && <span className="request-note-text">{request.note}</span>}
      </div>
      {request.decision ? <Decision request={request} /> : <DecideForm request={request} />}
    </li>
  );
}

/** The due date (received + one month, the GDPR's), in words as well as colour: due, due within a week, overdue. */
function Deadline({ request }: { request: TRequest }) {
  const due = formatDate(request.dueAt);
  if (request.deadline === 'decided') return <span className="request-deadline muted">Was due {due}</span>;
  if (request.deadline === 'overdue')
    return (
      <span className="request-deadline overdue">
        <strong>Overdue:</strong> it was due {due}
      </span>
    );
  if (request.deadline === 'soon')
    return (
      <span className="request-deadline soon">
        <strong>Due soon:</strong> answer by {due}
      </span>
    );
  return <span className="request-deadline">Due {due}</span>;
}

/** The hold that stops an erasure, named before anyone is asked to confirm one. */
function heldText(hold: NonNullable<TRequest['hold']>): string {
  const on = hold.on === 'case' ? `their case ${hold.label}` : 'this client';
  return `Erasing is not possible: a legal hold on ${on} since ${formatDate(hold.since)} (${hold.reason}). Refuse on the grounds of the hold, or release the hold first.`;
}

function Decision({ request }: { request: TRequest }) {
  const who = `${request.decidedBy?.name ?? 'someone no longer here'}${request.decidedAt ? ` on ${formatDateTime(request.decidedAt)}` : ''}`;
  return (
    <div className="request-decision">
      {request.decision === 'erase' ? (
        <p className="decision erase">
          <strong>Erased</strong> · decided by {who}
        </p>
      ) : (
        <p className="decision refuse">
          <strong>Refused</strong>: {request.grounds ? GROUND_LABEL[request.grounds] : 'no grounds recorded'} · decided by {who}
        </p>
      )}
      {request.batch && <BatchOutcome batchId={request.batch.id} />}
    </div>
  );
}

type TChoice = 'erase' | TGround;

/** Erase (asked again: it cannot be undone) or refuse on one of the fixed grounds. */
function DecideForm({ request }: { request: TRequest }) {
  const utils = trpc.useUtils();
  const [open, setOpen] = useState(false);
  const [choice, setChoice] = useState<TChoice | ''>('');
  const [confirming, setConfirming] = useState(false);
  const name = useId();
  const decide = trpc.erasure.decide.useMutation({
    onSuccess: () => {
      setOpen(false);
      void utils.erasure.list.invalidate();
      void utils.retention.batches.invalidate();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!choice) return;
    if (choice === 'erase' && !confirming) return setConfirming(true);
    decide.mutate(
      choice === 'erase' ? { requestId: request.id, decision: 'erase' } : { requestId: request.id, decision: 'refuse', grounds: choice },
    );
  };
  const pick = (value: TChoice) => {
    setChoice(value);
    setConfirming(false);
    decide.reset();
  };
  if (!open)
    return (
      <button
        type="button"
        className="button small"
        onClick={() => setOpen(true)}
        aria-label={`Decide the request of ${request.client.name}`}
      >
        Decide
      </button>
    );
  return (
    <form className="decide-form" onSubmit={submit} aria-label={`Decide the request of ${request.client.name}`}>
      <fieldset>
        <legend>Decision</legend>
        {request.hold ? (
          <p className="erase-held">{heldText(request.hold)}</p>
        ) : request.openCases > 0 ? (
          <p className="erase-held">
            {request.client.name} has {request.openCases === 1 ? 'an open case' : `${request.openCases} open cases`}: close{' '}
            {request.openCases === 1 ? 'it' : 'them'} before erasing, or refuse the request.
          </p>
        ) : (
          <label className="radio-line">
            <input type="radio" name={name} value="erase" checked={choice === 'erase'} onChange={() => pick('erase')} />
            Erase everything of {request.client.name}
          </label>
        )}
        <fieldset className="grounds">
          <legend>Or refuse, because of…</legend>
          {(Object.keys(GROUND_LABEL) as TGround[]).map((ground) => (
            <label key={ground} className="radio-line">
              <input type="radio" name={name} value={ground} checked={choice === ground} onChange={() => pick(ground)} />
              {GROUND_LABEL[ground]}
            </label>
          ))}
        </fieldset>
      </fieldset>
      {confirming && (
        <p className="destroy-warning" role="alert">
          <strong>This cannot be undone.</strong> Every record, file and case of {request.client.name}, and their name and numbers, are
          erased for good; a certificate keeps only ids and fingerprints.
        </p>
      )}
      <div className="button-row">
        <button type="submit" className={choice === 'erase' ? 'button danger' : 'button primary'} disabled={!choice || decide.isPending}>
          {decide.isPending ? 'Saving…' : choice === 'erase' ? (confirming ? 'Erase for good' : 'Erase…') : 'Refuse the request'}
        </button>
        <button
          type="button"
          className="button ghost"
          onClick={() => {
            setOpen(false);
            setChoice('');
            setConfirming(false);
            decide.reset();
          }}
        >
          Cancel
        </button>
      </div>
      {decide.error && (
        <p className="form-error" role="alert">
          {decide.error.message}
        </p>
      )}
    </form>
  );
}
