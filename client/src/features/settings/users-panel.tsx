import { useId, useState } from 'react';
import { formatDateTime } from '../../lib/format';
import { trpc, type TOutputs } from '../../lib/trpc';
import { QueryStatus } from '../../ui/query-status';
import { ConfirmButton } from '../../ui/confirm-button';
import { FoldToggle } from '../../ui/fold-toggle';
import { useToast } from '../../ui/toasts';
import { PersonWalls } from '../access';
import { InvitePersonForm, PendingInvitations } from './invite-person-form';
import { PersonSessions } from './person-sessions';

type TUser = TOutputs['users']['list'][number];
type TRole = TUser['role'];

const ROLE_LABEL: Record<TRole, string> = { director: 'Director', staff: 'Staff' };

/** People who can sign in (directors only; the server refuses anyone else): invite, change a role, deactivate, reactivate. */
export function UsersPanel() {
  const users = trpc.users.list.useQuery();
  const me = trpc.auth.me.useQuery(undefined, { staleTime: Infinity });
  return (
    <section className="card people" aria-labelledby="people-title">
      <h2 id="people-title">People</h2>
      <p className="muted">
        Who can sign in. Directors also manage people, check the provider connection and read the audit trail. A deactivated person cannot
        sign in and is signed out at once; what they did stays on the record. Reactivate them to let them sign in again with their password.
        Walls lists what a person is screened from and what they are a member of.
      </p>
      <QueryStatus query={users} loading="Loading people…" padded={false}>
        {(list) => (
          <ul className="people-list" aria-label="People">
            {list.map((user) => (
              <PersonRow key={user.id} user={user} isMe={user.id === me.data?.id} listedAt={users.dataUpdatedAt} />
            ))}
          </ul>
        )}
      </QueryStatus>
      <PendingInvitations />
      <InvitePersonForm />
    </section>
  );
}

/** `listedAt`: when the list was last read — a refusal shown on a row is stale once anyone changed. */
function PersonRow({ user, isMe, listedAt }: { user: TUser; isMe: boolean; listedAt: number }) {
  const utils = trpc.useUtils();
  const toast = useToast();
  const [wallsOpen, setWallsOpen] = useState(false);
  const wallsId = useId();
  const [sessionsOpen, setSessionsOpen] = useState(false);
  const sessionsId = useId();
  const changeRole = trpc.users.changeRole.useMutation({
    onSuccess: async (changed) => {
      deactivate.reset();
      reactivate.reset();
      toast('success', `${changed.name} is now ${changed.role === 'director' ? 'a director' : 'staff'}.`);
      await utils.users.list.invalidate();
      // One's own role changed: the server treats the next request with it; the app follows.
      if (isMe) await utils.auth.me.invalidate();
    },
  });
  const deactivate = trpc.users.deactivate.useMutation({
    onSuccess: async (changed) => {
      changeRole.reset();
      await utils.users.list.invalidate();
      toast('success', `${changed.name} is deactivated and signed out.`);
    },
  });
  const reactivate = trpc.users.reactivate.useMutation({
    onSuccess: async (changed) => {
      changeRole.reset();
      await utils.users.list.invalidate();
      toast('success', `${changed.name} is active again and can sign in with their password.`);
    },
  });
  const active = user.deactivatedAt === null;
  const error = changeRole.error ?? deactivate.error ?? reactivate.error;
  const errorAt = Math.max(
    changeRole.failureReason ? changeRole.submittedAt : 0,
    deactivate.failureReason ? deactivate.submittedAt : 0,
    reactivate.failureReason ? reactivate.submittedAt : 0,
  );
  const shownError = error && errorAt >= listedAt ? error : null;
  return (
    <li className={`person${active ? '' : ' inactive'}`} data-user-id={user.id} data-status={active ? 'active' : 'deactivated'}>
      <div className="person-main">
        <span className="person-name">
          {user.name}
          {isMe && <span className="badge">You</span>}
        </span>
        <span className="person-email">{user.email}</span>
      </div>
      <div className="person-controls">
        {active ? (
          <label className="compact-field">
            <span className="visually-hidden">Role of {user.name}</span>
            <select
              value={user.role}
              disabled={changeRole.isPending}
              aria-invalid={Boolean(shownError && changeRole.error)}
              onChange={(e) => changeRole.mutate({ userId: user.id, role: e.target.value as TRole })}
            >
              <option value="staff">{ROLE_LABEL.staff}</option>
              <option value="director">{ROLE_LABEL.director}</option>
            </select>
          </label>
        ) : (
          <span className="person-role">{ROLE_LABEL[user.role]}</span>
        )}
        <span className={`person-status ${active ? 'active' : 'deactivated'}`}>
          {user.deactivatedAt === null ? 'Active' : `Deactivated ${formatDateTime(user.deactivatedAt)}`}
        </span>
        {active && !isMe && (
          <ConfirmButton
            label="Deactivate"
            ariaLabel={`Deactivate ${user.name}`}
            question={`Deactivate ${user.name}? They are signed out at once.`}
            confirmLabel="Deactivate"
            pending={deactivate.isPending}
            onConfirm={() => deactivate.mutate({ userId: user.id })}
            className="button small ghost"
          />
        )}
        {!active && (
          <button
            type="button"
            className="button small"
            aria-label={`Reactivate ${user.name}`}
            disabled={reactivate.isPending}
            onClick={() => reactivate.mutate({ userId: user.id })}
          >
            {reactivate.isPending ? 'Reactivating…' : 'Reactivate'}
          </button>
        )}
        <FoldToggle
          open={wallsOpen}
          onToggle={() => setWallsOpen(!wallsOpen)}
          label="Walls"
          ariaLabel={`Walls of ${user.name}`}
          controls={wallsId}
        />
        <FoldToggle
          open={sessionsOpen}
          onToggle={() => setSessionsOpen(!sessionsOpen)}
          label="Sessions"
          ariaLabel={`Sessions of ${user.name}`}
          controls={sessionsId}
        />
      </div>
      {/* Who this person is walled from or admitted to (server/access/README.md "Ethical walls"): folded, read when opened. */}
      {wallsOpen && <PersonWalls userId={user.id} id={wallsId} />}
      {sessionsOpen && <PersonSessions userId={user.id} name={user.name} id={sessionsId} />}
      {shownError && (
        <p className="form-error person-error" role="alert">
          {shownError.message}
        </p>
      )}
    </li>
  );
}
