import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { TDateOrder, TImportPreview } from '../../../../shared/import-preview';
import { formatDate, formatDateTime } from '../../lib/format';
import { trpc } from '../../lib/trpc';
import { ConfirmButton } from '../../ui/confirm-button';
import { FormSummary, useFormErrors } from '../../ui/field-error';

type TCase = { id: number; reference: string; title: string };
type TResult = { imported: number; duplicates: number; attachments: number };
type TSpan = { firstAt: string; lastAt: string };

const plural = (n: number, one: string) => `${n.toLocaleString()} ${one}${n === 1 ? '' : 's'}`;
const spanText = (span: TSpan) => `${formatDate(new Date(span.firstAt))} to ${formatDate(new Date(span.lastAt))}`;

/**
 * What the export holds, and the person's choices: which names are the firm's people (the rest are the
 * client's side), the case, and — when the export cannot tell — which number of a date is the day,
 * each reading shown as the span it gives.
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
  const summaryRef = useRef<HTMLParagraphElement>(null);
  // What was read is where the person's attention goes next (the file input they used is gone).
  useEffect(() => summaryRef.current?.focus(), []);
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
  const readings = preview.ambiguous && preview.readings ? preview.readings : null;
  const span: TSpan | null = readings
    ? readings[dateOrder === 'MDY' ? 'MDY' : 'DMY']
    : preview.firstAt && preview.lastAt
      ? { firstAt: preview.firstAt, lastAt: preview.lastAt }
      : null;
  const busy = commit.isPending || discard.isPending;
  return (
    <form className="import-preview" onSubmit={submit} aria-label="Import the chat" noValidate ref={formRef}>
      <p className="import-summary" role="status" tabIndex={-1} ref={summaryRef}>
        <strong>{preview.fileName}</strong>: {plural(preview.messages, 'message')}
        {span ? ` from ${formatDateTime(new Date(span.firstAt))} to ${formatDateTime(new Date(span.lastAt))}` : ''}
        {preview.attachments ? `, ${plural(preview.attachments, 'file')}` : ''}.
        {preview.missingMedia > 0 &&
          ` ${plural(preview.missingMedia, 'file')} the chat mentions ${preview.missingMedia === 1 ? 'is' : 'are'} not in the export.`}
      </p>
      {(preview.alreadyImported ?? 0) > 0 && (
        <p className="field-warning" role="note">
          This very file was imported before: importing it again adds only messages not already on file.
        </p>
      )}
      <fieldset className="field" aria-describedby={errors.inputId('firmParticipants')}>
        <legend>Who is the firm? Tick the firm&apos;s people; everyone else&apos;s messages are filed as {clientName}&apos;s side.</legend>
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
      {readings && (
        <fieldset className="field">
          <legend>The export does not say whether its dates are day first or month first (every day is 12 or less). Read them:</legend>
          {(['DMY', 'MDY'] as const).map((order) => {
            const reading = readings[order];
            return (
              <label key={order} className="check-row">
                <input
                  type="radio"
                  name="date-order"
                  checked={dateOrder === order}
                  disabled={!reading}
                  onChange={() => setDateOrder(order)}
                />
                <span>
                  {order === 'DMY' ? 'Day first' : 'Month first'}
                  <span className="muted">
                    {reading ? `: ${spanText(reading)}` : ': not possible (a date would be no day, or after today)'}
                  </span>
                </span>
              </label>
            );
          })}
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
        SHA-256. Importing the same chat again adds nothing twice. An import cannot be undone.
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
        <button type="submit" className="button primary" disabled={busy}>
          {commit.isPending ? 'Importing…' : `Import ${plural(preview.messages, 'message')}`}
        </button>
        <ConfirmButton
          label="Discard"
          className="button ghost"
          question="Discard this export?"
          confirmLabel="Discard"
          pending={busy}
          onConfirm={() => discard.mutate({ importId: preview.importId })}
        />
      </div>
    </form>
  );
}
