import { formatDateTime } from '../../lib/format';
import { trpc, type TOutputs } from '../../lib/trpc';
import { ConfirmButton } from '../../ui/confirm-button';
import { QueryStatus } from '../../ui/query-status';
import { useToast } from '../../ui/toasts';
import { SESSION_METHOD_LABEL } from '../../../../shared/session-methods';
import { deviceWords } from './device-words';

type TSession = TOutputs['auth']['sessions'][number];

/** Where you're signed in: every session of yours, this one marked, any other signed out from here at once. */
export function SessionsPanel() {
  const sessions = trpc.auth.sessions.useQuery();
  return (
    <section className="card sessions" aria-labelledby="sessions-title">
      <h2 id="sessions-title">Where you’re signed in</h2>
      <p className="muted">
        Each browser or device signed in as you. Sign out any you do not recognise or no longer use: it is signed out at once.
      </p>
      <QueryStatus query={sessions} loading="Loading your sessions…" padded={false}>
        {(list) => (
          <ul className="people-list" aria-label="Your sessions">
            {list.map((session) => (
              <SessionRow key={session.id} session={session} />
            ))}
          </ul>
        )}
      </QueryStatus>
    </section>
  );
}

function SessionRow({ session }: { session: TSession }) {
  const utils = trpc.useUtils();
  const toast = useToast();
  const revoke = trpc.auth.revokeSession.useMutation({
    onSuccess: async () => {
      toast('success', `${deviceWords(session.userAgent)} is signed out.`);
      await utils.auth.sessions.invalidate();
    },
    // Already gone (signed out elsewhere, expired): the list is what is stale.
    onError: () => void utils.auth.sessions.invalidate(),
  });
  const device = deviceWords(session.userAgent);
  return (
    <li className="person" data-session-id={session.id} data-current={session.current}>
      <div className="person-main">
        <span className="person-name">
          {device}
          {session.current && <span className="person-status active">This device</span>}
        </span>
        <span className="person-email">
          {session.ip ?? 'Unknown address'} · last active {formatDateTime(session.lastSeenAt)} · signed in{' '}
          {formatDateTime(session.createdAt)} with {SESSION_METHOD_LABEL[session.method]}
        </span>
      </div>
      {!session.current && (
        <div className="person-controls">
          <ConfirmButton
            label="Sign out"
            ariaLabel={`Sign out ${device}, last active ${formatDateTime(session.lastSeenAt)}`}
            question="Sign it out now?"
            confirmLabel="Sign out"
            pending={revoke.isPending}
            onConfirm={() => revoke.mutate({ id: session.id })}
          />
          {revoke.error && (
            <span className="form-error" role="alert">
              {revoke.error.message}
            </span>
          )}
        </div>
      )}
    </li>
  );
}
