import { useState, type FormEvent } from 'react';
import { formatPhone } from '../../lib/format';
import { trpc } from '../../lib/trpc';
import { FormSummary, useFormErrors } from '../../ui/field-error';
import { useToast } from '../../ui/toasts';

const FIELDS = ['phone', 'label', 'apiKey', 'webhookSecret', 'phoneNumberId'] as const;
type TField = (typeof FIELDS)[number];

/** The fields after the phone, each with its hint; a key and a secret are typed unseen. */
const HINTED: { field: Exclude<TField, 'phone'>; label: string; hint: string; secret?: true }[] = [
  { field: 'label', label: 'Label', hint: 'What everyone sees beside its messages, e.g. “Lettings”.' },
  { field: 'apiKey', label: 'Provider API key', hint: 'Kept sealed on the server and never shown again.', secret: true },
  { field: 'webhookSecret', label: 'Webhook secret (optional)', hint: 'Leave it empty to use the firm’s secret.', secret: true },
  { field: 'phoneNumberId', label: 'Provider phone number id (optional)', hint: 'The provider’s id of this number, if it gives one.' },
];

const EMPTY: Record<TField, string> = { phone: '', label: '', apiKey: '', webhookSecret: '', phoneNumberId: '' };

/**
 * A director adds a business number with its own provider key; the key is sent once and never shown
 * again. Opened by a button (`onDone`: added or cancelled, focus goes back to it); the phone field takes focus.
 */
export function AddNumberForm({ onDone }: { onDone: () => void }) {
  const utils = trpc.useUtils();
  const toast = useToast();
  const [draft, setDraft] = useState(EMPTY);
  const change = (field: TField, value: string) => setDraft((d) => ({ ...d, [field]: value }));
  const add = trpc.numbers.add.useMutation({
    onSuccess: async (n) => {
      toast('success', `“${n.label}” (${formatPhone(n.phone)}) added.`);
      setDraft(EMPTY);
      await utils.numbers.list.invalidate();
      onDone();
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
            autoFocus
            value={draft.phone}
            onChange={(e) => change('phone', e.target.value)}
            {...errors.field('phone')}
          />
          {errors.message('phone')}
        </div>
        {HINTED.map(({ field, label, hint, secret }) => (
          <div className="field" key={field}>
            <label htmlFor={errors.inputId(field)}>{label}</label>
            <small className="field-hint" id={hintId(field)}>
              {hint}
            </small>
            <input
              type={secret ? 'password' : 'text'}
              autoComplete="off"
              value={draft[field]}
              onChange={(e) => change(field, e.target.value)}
              {...hinted(field)}
            />
            {errors.message(field)}
          </div>
        ))}
      </div>
      <div className="button-row">
        <button type="submit" className="button primary" disabled={add.isPending}>
          {add.isPending ? 'Adding…' : 'Add number'}
        </button>
        <button type="button" className="button ghost" onClick={onDone}>
          Cancel
        </button>
      </div>
      <FormSummary id={errors.summaryId} summary={errors.summary} />
    </form>
  );
}
