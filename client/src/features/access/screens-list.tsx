import { ConfirmButton } from '../../ui/confirm-button';
import { ScreenForm } from './screen-form';
import { WallPerson } from './wall-person';
import { freshError, type TAccess, type TAccessChanges, type TPerson, type TSubject } from './use-access';

type TProps = {
  subject: TSubject;
  wall: TAccess;
  changes: TAccessChanges;
  readAt: number;
  people: TPerson[];
  myId: number;
  kind: 'client' | 'case';
};

/** Who is screened, and why: they see nothing of the matter, whatever else is true of them. */
export function ScreensList({ subject, wall, changes, readAt, people, myId, kind }: TProps) {
  const lift = changes.unscreen;
  const liftError = freshError(lift, readAt);
  return (
    <div className="access-group">
      <h3>Screened</h3>
      {wall.screens.length === 0 ? (
        <p className="muted small">No one is screened from this {kind}.</p>
      ) : (
        <ul className="access-list" aria-label="Screened people">
          {wall.screens.map((s) => (
            <li key={s.id} data-user-id={s.id}>
              <WallPerson person={s} me={s.id === myId} added="Screened" detail={<span className="access-reason">{s.reason}</span>} />
              <ConfirmButton
                label="Lift"
                ariaLabel={`Lift the screen on ${s.name}`}
                className="button small ghost"
                question={`Let ${s.name} see it again?`}
                confirmLabel="Lift"
                pending={lift.isPending}
                onConfirm={() => lift.mutate({ ...subject, userId: s.id })}
              />
            </li>
          ))}
        </ul>
      )}
      {liftError && (
        <p className="form-error" role="alert">
          {liftError.message}
        </p>
      )}
      <ScreenForm subject={subject} wall={wall} changes={changes} readAt={readAt} people={people} myId={myId} />
    </div>
  );
}
