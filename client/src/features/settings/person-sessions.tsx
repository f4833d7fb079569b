import { SESSION_METHOD_LABEL } from '../../../../shared/session-methods';
import { formatDateTime } from '../../lib/format';
import { trpc } from '../../lib/trpc';
import { ConfirmButton } from '../../ui/confirm-button';
import { QueryStatus } from '../../ui/query-status';
import { useToast } from '../../ui/toasts';
import { deviceWords } from './device-words';

/**
 * Where a person is signed in (directors, Settings › People), read only once opened, and every one of
 * those sessions ended at once — a lost laptop, a leaver — their open pages with them.
 */
export function PersonSessions({ userId, name, id }: { userId: number; name: string; id: string }) {
  const utils = trpc.useUtils();
  const toast = useToast();
  const sessions = trpc.users.sessions.useQuery({ userId });
  const end = trpc.users.endSessions.useMutation({
    onSuccess: async ({ sessionsEnded }) => {
      toast('success', `${name} is signed out everywhere (${sessionsEnded} session${sessionsEnded === 1 ? '' : 's'} ended).`);
      await utils.users.sessions.invalidate({ userId });
    },
  });
  return (
    <div className="person-walls" id={id}>
      <QueryStatus query={sessions} loading="Loading sessions…" padded={false}>
        {(list) =>
          list.length === 0 ? (
            <p className="muted small">{name} is not signed in anywhere.</p>
          ) : (
            <>
              <ul className="person-session-list" aria-label={`Sessions of ${name}`}>
                {list.map((session) => (
                  <li key={session.id} className="small">
                    {deviceWords(session.userAgent)}
                    {session.current && ' (this device)'} · {session.ip ?? 'unknown address'} · last active{' '}
                    {formatDateTime(session.lastSeenAt)} · with {SESSION_METHOD_LABEL[session.method]}
                  </li>
                ))}
              </ul>
              <ConfirmButton
                label="Sign out everywhere"
                ariaLabel={`Sign ${name} out everywhere`}
                question={`End all of ${name}’s sessions now?`}
                confirmLabel="End them"
                pending={end.isPending}
                onConfirm={() => end.mutate({ userId })}
                className="button small ghost"
              />
            </>
          )
        }
      </QueryStatus>
      {end.error && (
        <p className="form-error" role="alert">
          {end.error.message}
        </p>
      )}
    </div>
  );
}
