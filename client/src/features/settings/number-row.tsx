import { useEffect, useRef, useState, type FormEvent } from 'react';
import { trpc, type TOutputs } from '../../lib/trpc';
import { ConfirmButton } from '../../ui/confirm-button';
import { FormSummary, useFormErrors } from '../../ui/field-error';
import { PhoneNumber } from '../../ui/phone-number';
import { useToast } from '../../ui/toasts';
import { ConnectionResult } from './connection-result';

export type TFirmNumber = TOutputs['numbers']['list'][number];

const RENAME_FIELDS = ['label'] as const;
const KEY_FIELDS = ['apiKey', 'webhookSecret'] as const;

/** Where the number's provider key and webhook secret come from; never their values. */
function keysOf(number: TFirmNumber): string {
  if (number.configured) return 'Key and webhook secret from the configuration (MESSAGING_API_KEY, MESSAGING_WEBHOOK_SECRET)';
  const key = number.hasOwnKey ? 'Own provider key' : 'No provider key';
  const secret = number.hasOwnWebhookSecret ? 'own webhook secret' : 'the firm’s webhook secret';
  return `${key} · ${secret}`;
}

/** One of the firm's numbers: what it is, and (while active) rename, replace its key, check it, deactivate it. */
export function NumberRow({ number }: { number: TFirmNumber }) {
  const utils = trpc.useUtils();
  const toast = useToast();
  const [mode, setMode] = useState<'rename' | 'key' | null>(null);
  const renameButton = useRef<HTMLButtonElement>(null);
  const keyButton = useRef<HTMLButtonElement>(null);
  const closedForm = useRef<'rename' | 'key' | null>(null);
  const close = (form: 'rename' | 'key') => {
    closedForm.current = form;
    setMode(null);
  };
  // A closed form takes its focus with it: back to the button that opened it.
  useEffect(() => {
    if (mode !== null || !closedForm.current) return;
    (closedForm.current === 'rename' ? renameButton : keyButton).current?.focus();
    closedForm.current = null;
  }, [mode]);
  const check = trpc.settings.checkConnection.useMutation();
  const deactivate = trpc.numbers.deactivate.useMutation({
    onSuccess: async (n) => {
      toast('success', `“${n.label}” is deactivated: nothing is sent from it any more.`);
      await utils.numbers.list.invalidate();
    },
    onError: (error) => toast('error', error.message),
  });
  const name = `“${number.label}”`;
  return (
    <li className={`firm-number${number.active ? '' : ' inactive'}`} data-number-id={number.id}>
      <div className="firm-number-main">
        {mode === 'rename' ? (
          <RenameNumberForm number={number} onDone={() => close('rename')} />
        ) : (
          <span className="firm-number-label">
            <strong>{number.label}</strong>
            {number.configured && <span className="badge">main number</span>}
            {!number.active && <span className="badge muted-badge">deactivated</span>}
          </span>
        )}
        <span className="firm-number-phone">
          {number.phone ? <PhoneNumber value={number.phone} /> : <span className="muted">No number yet (FIRM_PHONE is not set)</span>}
        </span>
        <span className="muted small">
          {keysOf(number)}
          {number.phoneNumberId && (
            <>
              {' '}
              · provider id <code>{number.phoneNumberId}</code>
            </>
          )}
        </span>
      </div>
      {number.active && mode === null && (
        <div className="button-row firm-number-actions">
          <button ref={renameButton} type="button" className="button small" onClick={() => setMode('rename')} aria-label={`Rename ${name}`}>
            Rename
          </button>
          {!number.configured && (
            <button
              ref={keyButton}
              type="button"
              className="button small"
              onClick={() => setMode('key')}
              aria-label={`Replace key of ${name}`}
            >
              Replace key
            </button>
          )}
          <button
            type="button"
            className="button small"
            disabled={check.isPending}
            onClick={() => check.mutate({ numberId: number.id })}
            aria-label={`Check the line of ${name}`}
          >
            {check.isPending ? 'Checking…' : 'Check the line'}
          </button>
          {!number.configured && (
            <ConfirmButton
              label="Deactivate"
              ariaLabel={`Deactivate ${name}`}
              question={`Deactivate ${name}? Nothing is sent from it, and what the provider posts for it is ignored.`}
              confirmLabel="Deactivate"
              pending={deactivate.isPending}
              onConfirm={() => deactivate.mutate({ id: number.id })}
            />
          )}
        </div>
      )}
      {mode === 'key' && (
        <ReplaceKeyForm
          number={number}
          onDone={(saved) => {
            // An answer about the old key would now mislead.
            if (saved) check.reset();
            close('key');
          }}
        />
      )}
      {number.active && <ConnectionResult check={check} />}
    </li>
  );
}

/** The label, edited in place; focus goes to it when it opens. */
function RenameNumberForm({ number, onDone }: { number: TFirmNumber; onDone: () => void }) {
  const utils = trpc.useUtils();
  const toast = useToast();
  const [label, setLabel] = useState(number.label);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.select(), []);
  const update = trpc.numbers.update.useMutation({
    onSuccess: async (n) => {
      toast('success', `Renamed “${n.label}”.`);
      await utils.numbers.list.invalidate();
      onDone();
    },
  });
  const { formRef, ...errors } = useFormErrors(update.error, RENAME_FIELDS);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    update.mutate({ id: number.id, label });
  };
  return (
    <form onSubmit={submit} noValidate ref={formRef} aria-label={`Rename “${number.label}”`} className="firm-number-form">
      <div className="field">
        <label htmlFor={errors.inputId('label')}>Label</label>
        <input ref={input} value={label} autoComplete="off" onChange={(e) => setLabel(e.target.value)} {...errors.field('label')} />
        {errors.message('label')}
      </div>
      <div className="button-row">
        <button type="submit" className="button primary small" disabled={update.isPending}>
          {update.isPending ? 'Saving…' : 'Save label'}
        </button>
        <button type="button" className="button ghost small" onClick={onDone}>
          Cancel
        </button>
      </div>
      <FormSummary id={errors.summaryId} summary={errors.summary} />
    </form>
  );
}

/** A new provider key (and, if given, webhook secret); focus goes to the key. The inputs start empty: a saved key is never sent back. */
function ReplaceKeyForm({ number, onDone }: { number: TFirmNumber; onDone: (saved: boolean) => void }) {
  const utils = trpc.useUtils();
  const toast = useToast();
  const [apiKey, setApiKey] = useState('');
  const [webhookSecret, setWebhookSecret] = useState('');
  const keyInput = useRef<HTMLInputElement>(null);
  useEffect(() => keyInput.current?.focus(), []);
  const update = trpc.numbers.update.useMutation({
    onSuccess: async (n) => {
      toast('success', `New key saved for “${n.label}”.`);
      await utils.numbers.list.invalidate();
      onDone(true);
    },
  });
  const { formRef, ...errors } = useFormErrors(update.error, KEY_FIELDS);
  const secretHint = `${errors.inputId('webhookSecret')}-hint`;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    update.mutate({ id: number.id, apiKey, ...(webhookSecret.trim() ? { webhookSecret } : {}) });
  };
  return (
    <form onSubmit={submit} noValidate ref={formRef} aria-label={`Replace the key of “${number.label}”`} className="firm-number-form">
      <div className="field">
        <label htmlFor={errors.inputId('apiKey')}>New provider API key</label>
        <input
          ref={keyInput}
          type="password"
          value={apiKey}
          autoComplete="off"
          onChange={(e) => setApiKey(e.target.value)}
          {...errors.field('apiKey')}
        />
        {errors.message('apiKey')}
      </div>
      <div className="field">
        <label htmlFor={errors.inputId('webhookSecret')}>New webhook secret (optional)</label>
        <small className="field-hint" id={secretHint}>
          Leave it empty to keep {number.hasOwnWebhookSecret ? 'its own secret' : 'the firm’s secret'}.
        </small>
        <input
          type="password"
          value={webhookSecret}
          autoComplete="off"
          onChange={(e) => setWebhookSecret(e.target.value)}
          {...errors.field('webhookSecret')}
          aria-describedby={[secretHint, errors.field('webhookSecret')['aria-describedby']].filter(Boolean).join(' ')}
        />
        {errors.message('webhookSecret')}
      </div>
      <div className="button-row">
        <button type="submit" className="button primary small" disabled={update.isPending}>
          {update.isPending ? 'Saving…' : 'Save key'}
        </button>
        <button type="button" className="button ghost small" onClick={() => onDone(false)}>
          Cancel
        </button>
      </div>
      <FormSummary id={errors.summaryId} summary={errors.summary} />
    </form>
  );
}
