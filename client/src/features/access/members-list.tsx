import { useId, useState, type FormEvent } from 'react';
import { ConfirmButton } from '../../ui/confirm-button';
import { FormSummary } from '../../ui/field-error';
import { PersonOption } from './person-option';
import { WallPerson } from './wall-person';
import { freshError, type TAccess, type TAccessChanges, type TPerson, type TSubject } from './use-access';

type TProps = { subject: TSubject; wall: TAccess; changes: TAccessChanges; readAt: number; people: TPerson[]; myId: number };

/** The members: who sees the matter while it is restricted (a screen still wins over membership). */
export function MembersList({ subject, wall, changes, readAt, people, myId }: TProps) {
  const remove = changes.removeMember;
  const removeError = freshError(remove, readAt);
  return (
    <div className="access-group">
      <h3>Members</h3>
      {wall.members.length === 0 ? (
        <p className="muted small">No members yet.{wall.restricted ? '' : ' Add them before restricting.'}</p>
      ) : (
        <ul className="access-list" aria-label="Members">
          {wall.members.map((m) => (
            <li key={m.id} data-user-id={m.id}>
              <WallPerson
                person={m}
                me={m.id === myId}
                added="Added"
                badges={m.screened && <span className="badge screened-badge">screened — the screen wins</span>}
              />
              <ConfirmButton
                label="Remove"
                ariaLabel={`Remove ${m.name} from the members`}
                className="button small ghost"
                question={`Remove ${m.name}?`}
                confirmLabel="Remove"
                pending={remove.isPending}
                onConfirm={() => remove.mutate({ ...subject, userId: m.id })}
              />
            </li>
          ))}
        </ul>
      )}
      {removeError && (
        <p className="form-error" role="alert">
          {removeError.message}
        </p>
      )}
      <AddMemberForm subject={subject} wall={wall} changes={changes} readAt={readAt} people={people} myId={myId} />
    </div>
  );
}

/** Adds one of the active people who is not a member yet. */
function AddMemberForm({ subject, wall, changes, readAt, people, myId }: TProps) {
  const [userId, setUserId] = useState('');
  const errorId = useId();
  const add = changes.addMember;
  const error = freshError(add, readAt);
  const candidates = people.filter((p) => p.deactivatedAt === null && !wall.members.some((m) => m.id === p.id));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!userId) return;
    add.mutate({ ...subject, userId: Number(userId) }, { onSuccess: () => setUserId('') });
  };
  if (candidates.length === 0 && !error) return null;
  return (
    <form className="access-form" onSubmit={submit} aria-label="Add a member">
      <label className="compact-field">
        <span className="visually-hidden">Person to add as a member</span>
        <select
          value={userId}
          onChange={(e) => setUserId(e.target.value)}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? errorId : undefined}
        >
          <option value="">Add a member…</option>
          {candidates.map((p) => (
            <PersonOption key={p.id} person={p} me={p.id === myId} screened={wall.screens.some((s) => s.id === p.id)} />
          ))}
        </select>
      </label>
      <button type="submit" className="button small" disabled={!userId || add.isPending}>
        {add.isPending ? 'Adding…' : 'Add'}
      </button>
      <FormSummary id={errorId} summary={error?.message ?? null} />
    </form>
  );
}
