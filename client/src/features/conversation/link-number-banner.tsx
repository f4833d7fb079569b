import { useState, type FormEvent } from 'react';
import { useLocation } from 'wouter';
import { usePhoneFormatter } from '../../lib/format';
import { trpc, type TThreadSummary } from '../../lib/trpc';
import { useToast } from '../../ui/toasts';

type TProps = { phone: string; summary: TThreadSummary };

/**
 * An unlinked number's banner: link it to a client (the candidates sharing its last 9 digits first,
 * with their numbers and open cases) or create a client from it. Linking adds the number to the
 * client and opens the client's conversation, where the link can be undone.
 */
export function LinkNumberBanner({ phone, summary }: TProps) {
  const format = usePhoneFormatter();
  const utils = trpc.useUtils();
  const toast = useToast();
  const [, navigate] = useLocation();
  const [clientId, setClientId] = useState('');
  const [creating, setCreating] = useState(false);
  const clients = trpc.clients.list.useQuery();
  const link = trpc.inbox.link.useMutation({
    onSuccess: ({ linked }, input) => {
      toast('success', `${format(phone)} linked: ${linked} message${linked === 1 ? '' : 's'} filed under the client.`);
      void utils.inbox.invalidate();
      void utils.clients.invalidate();
      void utils.timeline.invalidate();
      navigate(`/inbox/client/${input.clientId}`);
    },
    onError: (error) => {
      if (error.data?.code !== 'CONFLICT') toast('error', error.message);
    },
  });
  // Another client has this very number: say whose, and let a person decide for this link only.
  const conflict = link.error?.data?.code === 'CONFLICT' && link.variables ? link.variables : null;
  const names = summary.candidates.map((c) => c.name).join(' or ');

  return (
    <div className={`link-banner ${summary.match}`}>
      <p>
        {summary.candidates.length > 1
          ? `This could be ${names}: ${format(phone)} ends in the same 9 digits as their numbers, so it was not filed automatically. Who is writing?`
          : summary.candidates.length === 1
            ? `${format(phone)} ends in the same 9 digits as ${names}'s number but was not filed automatically. Is it them?`
            : `${format(phone)} is not on any client file. Link it to a client, or create one, to file its messages.`}
      </p>
      {summary.candidates.length > 0 && (
        <ul className="candidates">
          {summary.candidates.map((c) => (
            <li key={c.id}>
              <span className="candidate-main">
                <strong>{c.name}</strong>
                <span className="muted">{c.numbers.map(format).join(', ')}</span>
                <span className="muted">
                  {c.openCases.length ? `Open: ${c.openCases.map((k) => `${k.reference} ${k.title}`).join('; ')}` : 'No open case'}
                </span>
              </span>
              <button
                type="button"
                className="button small"
                disabled={link.isPending}
                onClick={() => link.mutate({ phone, clientId: c.id })}
              >
                Link to {c.name}
              </button>
            </li>
          ))}
        </ul>
      )}
      <form
        className="link-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (clientId) link.mutate({ phone, clientId: Number(clientId) });
        }}
      >
        <label className="visually-hidden" htmlFor="link-client">
          Client
        </label>
        <select id="link-client" value={clientId} onChange={(e) => setClientId(e.target.value)} required>
          <option value="">{summary.candidates.length ? 'Someone else…' : 'Choose a client…'}</option>
          {clients.data?.map((c) => (
            <option key={c.id} value={c.id}>
              {c.name} ({format(c.phone)})
            </option>
          ))}
        </select>
        <button type="submit" className="button small" disabled={!clientId || link.isPending}>
          Link to client
        </button>
        {!creating && (
          <button type="button" className="button small ghost" onClick={() => setCreating(true)}>
            Create client from this number
          </button>
        )}
      </form>
      {conflict && (
        <p className="field-warning" role="alert">
          {link.error?.message}{' '}
          <button
            type="button"
            className="button small"
            disabled={link.isPending}
            onClick={() => link.mutate({ ...conflict, confirm: true })}
          >
            Link anyway
          </button>
        </p>
      )}
      {creating && (
        <CreateClientFromNumber
          phone={phone}
          suggestedName={summary.contactName ?? ''}
          onCreated={(id) => link.mutate({ phone, clientId: id })}
          onCancel={() => setCreating(false)}
        />
      )}
    </div>
  );
}

function CreateClientFromNumber(props: { phone: string; suggestedName: string; onCreated: (id: number) => void; onCancel: () => void }) {
  const [name, setName] = useState(props.suggestedName);
  const create = trpc.clients.create.useMutation({ onSuccess: (client) => props.onCreated(client.id) });
  const conflict = create.error?.data?.code === 'CONFLICT';
  const submit = (event: FormEvent, confirm = false) => {
    event.preventDefault();
    create.mutate({ name, phone: `+${props.phone}`, confirm });
  };
  return (
    <form className="link-form create-from-number" onSubmit={submit} aria-label="Create client from this number">
      <label className="compact-field">
        <span>Name</span>
        <input required value={name} onChange={(e) => setName(e.target.value)} maxLength={200} />
      </label>
      <button type="submit" className="button small primary" disabled={create.isPending || !name.trim()}>
        Create client and link
      </button>
      <button type="button" className="button small ghost" onClick={props.onCancel}>
        Cancel
      </button>
      {create.error && (
        <p className="form-error" role="alert">
          {create.error.message}{' '}
          {conflict && (
            <button type="button" className="button small" onClick={(e) => submit(e, true)}>
              Add anyway
            </button>
          )}
        </p>
      )}
    </form>
  );
}
