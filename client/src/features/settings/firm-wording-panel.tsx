import { useState, type FormEvent } from 'react';
import { trpc, type TOutputs } from '../../lib/trpc';
import { ConfirmButton } from '../../ui/confirm-button';
import { FormSummary, useFormErrors } from '../../ui/field-error';
import { QueryStatus } from '../../ui/query-status';
import { useToast } from '../../ui/toasts';

type TWording = TOutputs['wording']['list'][number];

const FIELDS = ['title', 'body'] as const;

/** What a placeholder becomes in the composer (server/wording/README.md "Firm wording"). */
const PLACEHOLDERS: [string, string][] = [
  ['{{client.firstName}}', 'the client’s first name (left out for a number on no client’s file)'],
  ['{{client.name}}', 'the client’s full name'],
  ['{{me.name}}', 'the name of the person sending'],
  ['{{case_reference}}', 'the reference of the case chosen for the message'],
  ['{{case_title}}', 'the title of that case'],
  ['{{firm_name}}', 'the firm’s name'],
  ['{{firm_phone}}', 'the firm’s phone number'],
];

/** Settings › Firm wording (directors): the quick replies everyone inserts in the composer. */
export function FirmWordingPanel() {
  const list = trpc.wording.list.useQuery();
  const [editing, setEditing] = useState<number | 'new' | null>(null);
  return (
    <section className="card firm-wording" aria-labelledby="firm-wording-title">
      <h2 id="firm-wording-title">Firm wording</h2>
      <p className="muted small">Everyone can insert these in a message. Placeholders are filled in when inserted:</p>
      <dl className="placeholder-list small">
        {PLACEHOLDERS.map(([name, meaning]) => (
          <div key={name}>
            <dt>
              <code>{name}</code>
            </dt>
            <dd>{meaning}</dd>
          </div>
        ))}
      </dl>
      <QueryStatus query={list} loading="Loading the firm’s wording…" padded={false}>
        {(items) => (
          <ul className="wording-list">
            {items.map((w) => (
              <li key={w.id}>
                {editing === w.id ? (
                  <WordingForm saved={w} onDone={() => setEditing(null)} />
                ) : (
                  <WordingItem wording={w} onEdit={() => setEditing(w.id)} />
                )}
              </li>
            ))}
          </ul>
        )}
      </QueryStatus>
      {editing === 'new' ? (
        <WordingForm saved={null} onDone={() => setEditing(null)} />
      ) : (
        <button type="button" className="button" onClick={() => setEditing('new')}>
          Add wording
        </button>
      )}
    </section>
  );
}

function WordingItem({ wording, onEdit }: { wording: TWording; onEdit: () => void }) {
  const utils = trpc.useUtils();
  const toast = useToast();
  const remove = trpc.wording.remove.useMutation({
    onSuccess: async () => {
      toast('success', `“${wording.title}” removed.`);
      await utils.wording.list.invalidate();
    },
    onError: (error) => toast('error', error.message),
  });
  return (
    <div className="wording-item">
      <strong>{wording.title}</strong>
      <p className="wording-body">{wording.body}</p>
      <div className="button-row">
        <button type="button" className="button small" onClick={onEdit} aria-label={`Edit “${wording.title}”`}>
          Edit
        </button>
        <ConfirmButton
          label="Remove"
          ariaLabel={`Remove “${wording.title}”`}
          question={`Remove “${wording.title}” for everyone?`}
          confirmLabel="Remove"
          pending={remove.isPending}
          onConfirm={() => remove.mutate({ id: wording.id })}
        />
      </div>
    </div>
  );
}

/** A new piece of wording (`saved` null) or a change to one. */
function WordingForm({ saved, onDone }: { saved: TWording | null; onDone: () => void }) {
  const utils = trpc.useUtils();
  const toast = useToast();
  const [title, setTitle] = useState(saved?.title ?? '');
  const [body, setBody] = useState(saved?.body ?? '');
  const done = async (message: string) => {
    toast('success', message);
    await utils.wording.list.invalidate();
    onDone();
  };
  const add = trpc.wording.add.useMutation({ onSuccess: (w) => done(`“${w.title}” added.`) });
  const update = trpc.wording.update.useMutation({ onSuccess: (w) => done(`“${w.title}” saved.`) });
  const pending = add.isPending || update.isPending;
  const { formRef, ...errors } = useFormErrors(saved ? update.error : add.error, FIELDS);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (saved) update.mutate({ id: saved.id, title, body });
    else add.mutate({ title, body });
  };
  return (
    <form onSubmit={submit} noValidate ref={formRef} aria-label={saved ? `Edit “${saved.title}”` : 'New wording'} className="wording-form">
      <div className="field">
        <label htmlFor={errors.inputId('title')}>Title</label>
        <input value={title} maxLength={80} onChange={(e) => setTitle(e.target.value)} {...errors.field('title')} />
        {errors.message('title')}
      </div>
      <div className="field">
        <label htmlFor={errors.inputId('body')}>Wording</label>
        <textarea rows={4} value={body} onChange={(e) => setBody(e.target.value)} {...errors.field('body')} />
        {errors.message('body')}
      </div>
      <div className="button-row">
        <button type="submit" className="button primary" disabled={pending}>
          {pending ? 'Saving…' : saved ? 'Save wording' : 'Add wording'}
        </button>
        <button type="button" className="button ghost" onClick={onDone}>
          Cancel
        </button>
      </div>
      <FormSummary id={errors.summaryId} summary={errors.summary} />
    </form>
  );
}
