import { useState, type FormEvent } from 'react';
import type { TDateOrder, TImportPreview } from '../../../../shared/import-preview';
import { formatDateTime } from '../../lib/format';
import { trpc } from '../../lib/trpc';
import { FormSummary, useFormErrors } from '../../ui/field-error';

type TCase = { id: number; reference: string; title: string };
type TResult = { imported: number; duplicates: number; attachments: number };

const plural = (n: number, one: string) => `${n.toLocaleString()} ${one}${n === 1 ? '' : 's'}`;

/** How the two readings of an ambiguous date are offered: the first date of the export, read both ways. */
function readingsOf(preview: TImportPreview): { order: TDateOrder; label: string }[] {
  return [
    { order: 'DMY', label: 'Day first (29/11 is 29 November)' },
    { order: 'MDY', label: 'Month first (11/29 is November 29)' },
  ].filter((r) => preview.dateOrder !== 'YMD' || r.order === 'DMY') as { order: TDateOrder; label: string }[];
}

/**
 * What the export holds, and the person's choices: which names are the firm's people (the rest are the
 * client), the case, and — when the export cannot tell — which number of a date is the day.
 */
export function ImportPreviewForm({
  preview,
  clientId,
  clientName,
  cases,
  onDone,
  onClose,
}: {
  preview: TImportPreview;
  clientId: number;
  clientName: string;
  cases: TCase[];
  onDone: (result: TResult) => void;
  onClose: () => void;
}) {
  const me = trpc.auth.me.useQuery(undefined, { staleTime: Infinity }).data;
  // The person importing is most likely the lawyer whose phone it was: their own name starts ticked.
  const [firm, setFirm] = useState<string[]>(() => preview.participants.filter((p) => p.name === me?.name).map((p) => p.name));
  const [caseId, setCaseId] = useState<number | null>(null);
  const [dateOrder, setDateOrder] = useState<TDateOrder>(preview.dateOrder);
  const commit = trpc.imports.commit.useMutation({ onSuccess: onDone });
  // A long chat takes a while: how far the import has got, asked twice a second while it runs.
  const progress = trpc.imports.progress.useQuery(
    { importId: preview.importId },
    { enabled: commit.isPending, refetchInterval: commit.isPending ? 500 : false },
  ).data;
  const discard = trpc.imports.discard.useMutation({ onSettled: onClose });
  const { formRef, ...errors } = useFormErrors(commit.error, ['firmParticipants', 'dateOrder', 'caseId']);
  const toggle = (name: string) => setFirm((now) => (now.includes(name) ? now.filter((n) => n !== name) : [...now, name]));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    commit.mutate({
      importId: preview.importId,
      clientId,
      firmParticipants: firm,
      ...(caseId !== null ? { caseId } : {}),
      ...(preview.ambiguous ? { dateOrder } : {}),
    });
  };
  const span =
    preview.firstAt && preview.lastAt
      ? ` from ${formatDateTime(new Date(preview.firstAt))} to ${formatDateTime(new Date(preview.lastAt))}`
      : '';
  return (
    <form className="import-preview" onSubmit={submit} aria-label="Import the chat" noValidate ref={formRef}>
      <p className="import-summary" role="status">
        <strong>{preview.fileName}</strong>: {plural(preview.messages, 'message')}
        {span}
        {preview.attachments ? `, ${plural(preview.attachments, 'file')}` : ''}.
        {preview.missingMedia > 0 &&
          ` ${plural(preview.missingMedia, 'file')} the chat mentions ${preview.missingMedia === 1 ? 'is' : 'are'} not in the export.`}
      </p>
      <fieldset className="field" aria-describedby={errors.inputId('firmParticipants')}>
        <legend>Who is the firm? Tick the firm&apos;s people; everyone else is {clientName}.</legend>
        {preview.participants.map((p) => (
          <label key={p.name} className="check-row">
            <input type="checkbox" checked={firm.includes(p.name)} onChange={() => toggle(p.name)} />
            <span>
              {p.name} <span className="muted">({plural(p.messages, 'message')})</span>
            </span>
          </label>
        ))}
        {errors.message('firmParticipants')}
      </fieldset>
      {preview.ambiguous && (
        <fieldset className="field">
          <legend>The export does not say how its dates are written (every day is 12 or less). Read them:</legend>
          {readingsOf(preview).map((r) => (
            <label key={r.order} className="check-row">
              <input type="radio" name="date-order" checked={dateOrder === r.order} onChange={() => setDateOrder(r.order)} />
              <span>
                {r.label}
                {r.order === preview.dateOrder && <span className="muted"> — keeps the messages in time order</span>}
              </span>
            </label>
          ))}
          {errors.message('dateOrder')}
        </fieldset>
      )}
      {cases.length > 0 && (
        <div className="field">
          <label htmlFor="import-case">File on</label>
          <select id="import-case" value={caseId ?? ''} onChange={(e) => setCaseId(e.target.value ? Number(e.target.value) : null)}>
            <option value="">No case (the client&apos;s file)</option>
            {cases.map((c) => (
              <option key={c.id} value={c.id}>
                {c.reference} · {c.title}
              </option>
            ))}
          </select>
        </div>
      )}
      <p className="muted">
        The messages are kept as imported from the phone&apos;s export, not received through the provider, with the export itself and its
        SHA-256. Importing the same chat again adds nothing twice.
      </p>
      <FormSummary id={errors.summaryId} summary={errors.summary} />
      {commit.isPending && (
        <div className="verify-progress" role="status">
          <p>{progress ? `Importing: ${progress.done.toLocaleString()} of ${plural(progress.total, 'message')}…` : 'Importing…'}</p>
          {progress ? (
            <progress max={progress.total} value={progress.done} aria-label="Import progress" />
          ) : (
            <progress aria-label="Import progress" />
          )}
        </div>
      )}
      <div className="button-row">
        <button type="submit" className="button primary" disabled={commit.isPending || discard.isPending}>
          {commit.isPending ? 'Importing…' : `Import ${plural(preview.messages, 'message')}`}
        </button>
        <button
          type="button"
          className="button ghost"
          disabled={commit.isPending || discard.isPending}
          onClick={() => discard.mutate({ importId: preview.importId })}
        >
          Discard
        </button>
      </div>
    </form>
  );
}
