import { useState, type FormEvent } from 'react';
import { formatPhone } from '../../lib/format';
import { trpc } from '../../lib/trpc';
import { FormSummary, useFormErrors } from '../../ui/field-error';
import { useToast } from '../../ui/toasts';

const FIELDS = ['phone', 'label', 'apiKey', 'webhookSecret', 'phoneNumberId'] as const;
type TField = (typeof FIELDS)[number];

const EMPTY: Record<TField, string> = { phone: '', label: '', apiKey: '', webhookSecret: '', phoneNumberId: '' };

/** A director adds a business number with its own provider key; the key is sent once and never shown again. */
export function AddNumberForm() {
  const utils = trpc.useUtils();
  const toast = useToast();
  const [draft, setDraft] = useState(EMPTY);
  const change = (field: TField, value: string) => setDraft((d) => ({ ...d, [field]: value }));
  const add = trpc.numbers.add.useMutation({
    onSuccess: async (n) => {
      toast('success', `“${n.label}” (${formatPhone(n.phone)}) added.`);
      setDraft(EMPTY);
      await utils.numbers.list.invalidate();
    },
  });
  const { formRef, ...errors } = useFormErrors(add.error, FIELDS);
  const hintId = (field: TField) => `${errors.inputId(field)}-hint`;
  // The hint stays described when the server's message for the field is added beside it.
  const hinted = (field: TField) => {
    const props = errors.field(field);
    return { ...props, 'aria-describedby': [hintId(field), props['aria-describedby']].filter(Boolean).join(' ') };
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate({
      phone: draft.phone,
      label: draft.label,
      apiKey: draft.apiKey,
      // Left empty: the firm's webhook secret, and no provider id.
      webhookSecret: draft.webhookSecret.trim() || undefined,
      phoneNumberId: draft.phoneNumberId.trim() || undefined,
    });
  };
  return (
    <form className="add-number" onSubmit={submit} noValidate ref={formRef} aria-labelledby="add-number-title">
      <h3 id="add-number-title">Add a number</h3>
      <div className="add-number-fields">
        <div className="field">
          <label htmlFor={errors.inputId('phone')}>Phone number</label>
          <input
            inputMode="tel"
            autoComplete="off"
            placeholder="+44 7700 900000"
            value={draft.phone}
            onChange={(e) => change('phone', e.target.value)}
            {...errors.field('phone')}
          />
          {errors.message('phone')}
        </div>
        <div className="field">
          <label htmlFor={errors.inputId('label')}>Label</label>
          <small className="field-hint" id={hintId('label')}>
            What everyone sees beside its messages, e.g. “Lettings”.
          </small>
          <input autoComplete="off" value={draft.label} onChange={(e) => change('label', e.target.value)} {...hinted('label')} />
          {errors.message('label')}
        </div>
        <div className="field">
          <label htmlFor={errors.inputId('apiKey')}>Provider API key</label>
          <small className="field-hint" id={hintId('apiKey')}>
            Kept sealed on the server and never shown again.
          </small>
          <input
            type="password"
            autoComplete="off"
            value={draft.apiKey}
            onChange={(e) => change('apiKey', e.target.value)}
            {...hinted('apiKey')}
          />
          {errors.message('apiKey')}
        </div>
        <div className="field">
          <label htmlFor={errors.inputId('webhookSecret')}>Webhook secret (optional)</label>
          <small className="field-hint" id={hintId('webhookSecret')}>
            Leave it empty to use the firm’s secret.
          </small>
          <input
            type="password"
            autoComplete="off"
            value={draft.webhookSecret}
            onChange={(e) => change('webhookSecret', e.target.value)}
            {...hinted('webhookSecret')}
          />
          {errors.message('webhookSecret')}
        </div>
        <div className="field">
          <label htmlFor={errors.inputId('phoneNumberId')}>Provider phone number id (optional)</label>
          <small className="field-hint" id={hintId('phoneNumberId')}>
            The provider’s id of this number, if it gives one.
          </small>
          <input
            autoComplete="off"
            value={draft.phoneNumberId}
            onChange={(e) => change('phoneNumberId', e.target.value)}
            {...hinted('phoneNumberId')}
          />
          {errors.message('phoneNumberId')}
        </div>
      </div>
      <button type="submit" className="button primary" disabled={add.isPending}>
        {add.isPending ? 'Adding…' : 'Add number'}
      </button>
      <FormSummary id={errors.summaryId} summary={errors.summary} />
    </form>
  );
}
