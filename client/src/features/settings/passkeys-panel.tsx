import { useState, type FormEvent } from 'react';
import { formatDateTime } from '../../lib/format';
import { trpc, type TOutputs } from '../../lib/trpc';
import { ConfirmButton } from '../../ui/confirm-button';
import { QueryStatus } from '../../ui/query-status';
import { useToast } from '../../ui/toasts';
import { passkeyProblem, usePasskeyCreation } from '../auth';

type TPasskey = TOutputs['auth']['passkeys']['list'][number];

/** Passkeys: sign in with this device's screen lock or a security key instead of a password. */
export function PasskeysPanel() {
  const passkeys = trpc.auth.passkeys.list.useQuery();
  return (
    <section className="card passkeys" aria-labelledby="passkeys-title">
      <h2 id="passkeys-title">Passkeys</h2>
      <p className="muted">
        A passkey lets you sign in with this device’s fingerprint, face or screen lock, or a security key, without typing a password.
      </p>
      <QueryStatus query={passkeys} loading="Loading your passkeys…" padded={false}>
        {(list) =>
          list.length === 0 ? (
            <p className="muted">You have no passkeys yet.</p>
          ) : (
            <ul className="people-list" aria-label="Your passkeys">
              {list.map((passkey) => (
                <PasskeyRow key={passkey.id} passkey={passkey} />
              ))}
            </ul>
          )
        }
      </QueryStatus>
      <AddPasskey />
    </section>
  );
}

function AddPasskey() {
  const utils = trpc.useUtils();
  const toast = useToast();
  const createPasskey = usePasskeyCreation();
  const [name, setName] = useState('');
  const [asking, setAsking] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const register = trpc.auth.passkeys.register.useMutation();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setProblem(null);
    setAsking(true);
    try {
      const response = await createPasskey();
      const added = await register.mutateAsync({ response, ...(name.trim() ? { name } : {}) });
      setName('');
      toast('success', `Passkey “${added.name}” added. You can sign in with it now.`);
      await utils.auth.passkeys.list.invalidate();
    } catch (error) {
      setProblem(passkeyProblem(error, 'add'));
    } finally {
      setAsking(false);
    }
  };
  return (
    <form className="inline-form" onSubmit={(event) => void submit(event)} aria-label="Add a passkey">
      <label className="field">
        Name (optional)
        <input type="text" value={name} maxLength={100} placeholder="e.g. Work laptop" onChange={(event) => setName(event.target.value)} />
      </label>
      <div>
        <button type="submit" className="button primary" disabled={asking}>
          {asking ? 'Waiting for your device…' : 'Add a passkey'}
        </button>
      </div>
      {problem && (
        <p className="form-error" role="alert">
          {problem}
        </p>
      )}
    </form>
  );
}

function PasskeyRow({ passkey }: { passkey: TPasskey }) {
  const utils = trpc.useUtils();
  const toast = useToast();
  const remove = trpc.auth.passkeys.remove.useMutation({
    onSuccess: async ({ sessionsEnded }) => {
      const ended = sessionsEnded ? ` Your other sessions were signed out (${sessionsEnded}).` : '';
      toast('success', `Passkey “${passkey.name}” removed.${ended}`);
      await Promise.all([utils.auth.passkeys.list.invalidate(), utils.auth.sessions.invalidate()]);
    },
    onError: () => void utils.auth.passkeys.list.invalidate(),
  });
  return (
    <li className="person" data-passkey-id={passkey.id}>
      <div className="person-main">
        <span className="person-name">{passkey.name}</span>
        <span className="person-email">
          Added {formatDateTime(passkey.createdAt)} ·{' '}
          {passkey.lastUsedAt ? `last used ${formatDateTime(passkey.lastUsedAt)}` : 'not used yet'}
        </span>
      </div>
      <div className="person-controls">
        <ConfirmButton
          label="Remove"
          ariaLabel={`Remove passkey ${passkey.name}`}
          question="Remove it? Your other sessions will be signed out."
          confirmLabel="Remove"
          pending={remove.isPending}
          onConfirm={() => remove.mutate({ id: passkey.id })}
        />
        {remove.error && (
          <span className="form-error" role="alert">
            {remove.error.message}
          </span>
        )}
      </div>
    </li>
  );
}
