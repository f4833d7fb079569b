import { useId, useState } from 'react';
import { freshError, type TAccess, type TAccessChanges, type TSubject } from './use-access';

type TProps = { subject: TSubject; wall: TAccess; changes: TAccessChanges; readAt: number; myId: number; kind: 'client' | 'case' };

const MEANING = {
  client: 'Only the members below see this client — its file, cases, conversation and documents. To anyone else it does not exist.',
  case: 'Only the members below see this case and what is filed on it. The rest of the client’s file is unchanged.',
};

/**
 * Restricted on or off. A director who is not a member (or is screened) loses sight of the matter
 * the moment it is restricted — walls bind directors too — so that is asked first, in place.
 */
export function RestrictedSwitch({ subject, wall, changes, readAt, myId, kind }: TProps) {
  const [asking, setAsking] = useState(false);
  const change = changes.setRestricted;
  const error = freshError(change, readAt);
  const meaningId = useId();
  const seeing = wall.members.filter((m) => m.active && !m.screened);
  // With no member who could see it the server refuses, and says why: nothing to ask first.
  const wouldLoseIt = seeing.length > 0 && !seeing.some((m) => m.id === myId);
  const turn = (restricted: boolean) => {
    setAsking(false);
    change.mutate({ ...subject, restricted });
  };
  const onClick = () => {
    if (!wall.restricted && wouldLoseIt) setAsking(true);
    else turn(!wall.restricted);
  };
  return (
    <div className="access-switch">
      <div className="access-switch-row">
        <button
          type="button"
          role="switch"
          className="switch"
          aria-checked={wall.restricted}
          aria-describedby={meaningId}
          disabled={change.isPending}
          onClick={onClick}
        >
          <span className="switch-track" aria-hidden="true">
            <span className="switch-thumb" />
          </span>
          Restricted
        </button>
        <span className={`access-state ${wall.restricted ? 'on' : 'off'}`}>{wall.restricted ? 'On' : 'Off'}</span>
      </div>
      <p id={meaningId} className="muted small">
        {MEANING[kind]} A screened person never sees it, member or not.
      </p>
      {asking && (
        <p className="confirm-inline access-confirm" role="alert">
          You are not a member who can see it: once restricted, you will no longer see this {kind} either.
          <button type="button" className="button small danger" disabled={change.isPending} onClick={() => turn(true)}>
            Restrict
          </button>
          <button type="button" className="button small ghost" onClick={() => setAsking(false)}>
            Keep
          </button>
        </p>
      )}
      {error && (
        <p className="form-error" role="alert">
          {error.message}
        </p>
      )}
    </div>
  );
}
