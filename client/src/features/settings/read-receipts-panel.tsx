import { useState, type FormEvent } from 'react';
import { READ_RECEIPT_MODES, type TReadReceiptMode } from '../../../../shared/read-receipts';
import { trpc, type TOutputs } from '../../lib/trpc';
import { useFormErrors } from '../../ui/field-error';
import { QueryStatus } from '../../ui/query-status';
import { useToast } from '../../ui/toasts';
import { SaveFooter } from './save-footer';

const CHOICES: Record<TReadReceiptMode, { label: string; explained: string }> = {
  off: { label: 'Off', explained: 'Clients never see blue ticks: opening a conversation tells them nothing.' },
  assignee: {
    label: 'When the assignee opens it',
    explained: 'Clients see blue ticks when the person the conversation is assigned to opens it (anyone, while it is unassigned).',
  },
  anyone: { label: 'When anyone opens it', explained: 'Clients see blue ticks as soon as anyone at the firm opens the conversation.' },
};

/** Settings › Read receipts (directors): whose opening of a conversation shows the client blue ticks (server/messaging/README.md "Read receipts"). */
export function ReadReceiptsPanel() {
  const policy = trpc.settings.readReceipts.useQuery();
  return (
    <section className="card read-receipts" aria-labelledby="read-receipts-title">
      <h2 id="read-receipts-title">Read receipts</h2>
      <QueryStatus query={policy} loading="Loading the read-receipt policy…" padded={false}>
        {(saved) => <ReadReceiptsForm key={saved.mode} saved={saved} />}
      </QueryStatus>
    </section>
  );
}

function ReadReceiptsForm({ saved }: { saved: TOutputs['settings']['readReceipts'] }) {
  const utils = trpc.useUtils();
  const toast = useToast();
  const [mode, setMode] = useState<TReadReceiptMode>(saved.mode);
  const save = trpc.settings.setReadReceipts.useMutation({
    onSuccess: async () => {
      toast('success', 'Read receipts saved.');
      await utils.settings.readReceipts.invalidate();
    },
  });
  const { formRef, ...errors } = useFormErrors(save.error, ['mode'] as const);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({ mode });
  };
  return (
    <form onSubmit={submit} noValidate ref={formRef} aria-label="Read receipts">
      <fieldset className="field">
        <legend>Show clients their messages were read</legend>
        {READ_RECEIPT_MODES.map((value) => (
          <label key={value} className="radio-line">
            <input type="radio" name="readReceipts" value={value} checked={mode === value} onChange={() => setMode(value)} />
            <span>
              {CHOICES[value].label}
              <small className="field-hint">{CHOICES[value].explained}</small>
            </span>
          </label>
        ))}
        {errors.message('mode')}
      </fieldset>
      <SaveFooter pending={save.isPending} label="Save read receipts" errors={errors} saved={saved} />
    </form>
  );
}
