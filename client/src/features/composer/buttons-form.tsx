import { useState, type FormEvent } from 'react';
import { BUTTON_TITLE_MAX, buttonTitleProblems, titleAsSeen } from '../../../../shared/button-titles';
import { visibleLength } from '../../../../shared/visible-length';
import { placeInThread } from '../../lib/cache-patches';
import { newEchoId } from '../../lib/echo-id';
import { trpc } from '../../lib/trpc';
import { FormSummary, useFormErrors } from '../../ui/field-error';
import { useToast } from '../../ui/toasts';
import { errorCodeOf } from './queued-sends';

/** The provider's limits for quick-reply buttons: one to three, each title at most 20 characters as the client sees them. */
export const MAX_BUTTONS = 3;
export const BUTTON_TITLE_LIMIT = BUTTON_TITLE_MAX;

const FIELDS = ['body', 'buttons'] as const;

/**
 * What the provider would refuse, found before sending, by field (the server's own sentences): the
 * server checks the same again and stays the judge, but a refusal it cannot pin on one field (when
 * the question goes to a chosen number) would say less than these.
 */
export function checkQuestion(body: string, titles: readonly string[]): { body?: string[]; buttons?: string[] } | null {
  const problems: { body?: string[]; buttons?: string[] } = {};
  if (!body.trim()) problems.body = ['Type the question first'];
  const typed = titles.map((t) => t.trim()).filter(Boolean);
  const buttons: string[] = [];
  if (!typed.length) buttons.push('Add at least one button');
  // The server's own rules for one title (shared/button-titles), each sentence once.
  buttons.push(...new Set(typed.flatMap(buttonTitleProblems)));
  if (new Set(typed.map(titleAsSeen)).size !== typed.length) buttons.push('Two buttons have the same title: give each its own');
  if (buttons.length) problems.buttons = buttons;
  return problems.body || problems.buttons ? problems : null;
}

/** The titles typed, in order, each with the id the client's choice will name (b1, b2, b3). */
export function buttonsOf(titles: readonly string[]): { id: string; title: string }[] {
  return titles
    .map((title) => title.trim())
    .filter(Boolean)
    .map((title, i) => ({ id: `b${i + 1}`, title }));
}

/**
 * The question and its buttons, sent with `chat.sendButtons` to the number shown in the composer.
 * The server checks everything (the counts here only help); what it refuses shows by its field,
 * and nothing typed is lost.
 */
export function ButtonsForm({
  clientId,
  to,
  caseId,
  onSent,
  onDone,
}: {
  clientId: number;
  to: string | null;
  caseId: number | undefined;
  /** The question went (the composer's case choice was for it). */
  onSent: () => void;
  /** Close the form. */
  onDone: () => void;
}) {
  const utils = trpc.useUtils();
  const toast = useToast();
  const [body, setBody] = useState('');
  const [titles, setTitles] = useState<string[]>(['', '', '']);
  // One echo id for this question however often Send is pressed: a send answered late is not sent twice.
  const [echoId] = useState(newEchoId);
  const send = trpc.chat.sendButtons.useMutation({
    onSuccess: (sent) => {
      placeInThread(utils, { clientId }, { ...sent, readAt: null, receipts: [] });
      onSent();
      onDone();
    },
    onError: (error) => {
      // The provider refused it: the server kept the failed record, with its reason and a Retry.
      if (errorCodeOf(error) === 'BAD_GATEWAY') {
        void utils.inbox.thread.invalidate({ clientId });
        toast('error', error.message);
        onDone();
      }
    },
  });
  // Found here before sending (and nothing sent), else the server's answer.
  const [checked, setChecked] = useState<{ message: string; data: { fieldErrors: Record<string, string[]> } } | null>(null);
  const shownError = checked ?? (send.error && errorCodeOf(send.error) !== 'BAD_GATEWAY' ? send.error : null);
  const { formRef, ...errors } = useFormErrors(shownError, FIELDS);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    // The dialog sits outside the composer's form on the page, but React passes events up through
    // the component tree: the composer must not take this for its own submit.
    event.stopPropagation();
    const problems = checkQuestion(body, titles);
    setChecked(problems && { message: 'Correct the question first.', data: { fieldErrors: problems } });
    if (problems) return;
    send.mutate({ clientId, ...(to ? { to } : {}), ...(caseId !== undefined ? { caseId } : {}), body, buttons: buttonsOf(titles), echoId });
  };
  return (
    <form className="buttons-form" onSubmit={submit} noValidate ref={formRef} aria-label="Question with buttons">
      <div className="field">
        <label htmlFor={errors.inputId('body')}>Question</label>
        <textarea
          rows={3}
          value={body}
          onChange={(e) => setBody(e.target.value)}
          placeholder="Would you like us to call you this week?"
          autoFocus
          {...errors.field('body')}
        />
        {errors.message('body')}
      </div>
      <fieldset className="button-titles" {...errors.field('buttons')} tabIndex={-1}>
        <legend>Buttons (one to three)</legend>
        {titles.map((title, i) => {
          // Counted as the client will see it: a joined emoji or an accented letter is one.
          const length = visibleLength(title.trim());
          const over = length > BUTTON_TITLE_LIMIT;
          const countId = `${errors.inputId('buttons')}-count-${i}`;
          return (
            <label key={i} className="button-title">
              <input
                value={title}
                placeholder={i === 0 ? 'Yes, please call' : i === 1 ? 'No, thank you' : 'Optional'}
                aria-label={`Button ${i + 1}`}
                aria-describedby={countId}
                aria-invalid={over || undefined}
                onChange={(e) => setTitles((all) => all.map((t, j) => (j === i ? e.target.value : t)))}
              />
              <small id={countId} className={`title-count${over ? ' over' : ''}`}>
                {length}/{BUTTON_TITLE_LIMIT}
              </small>
            </label>
          );
        })}
        {errors.message('buttons')}
      </fieldset>
      <div className="button-row">
        <button type="submit" className="button primary" disabled={send.isPending}>
          {send.isPending ? 'Sending…' : 'Send question'}
        </button>
        <button type="button" className="button ghost" onClick={onDone}>
          Cancel
        </button>
      </div>
      <FormSummary id={errors.summaryId} summary={errors.summary} />
    </form>
  );
}
