import type { TThreadRef, TThreadSummary } from '../../lib/trpc';
import { AssigneeMenu } from './assignee-menu';
import { SnoozeMenu } from './snooze-menu';
import { StateLabel } from './state-label';
import { useOwnershipActions } from './use-ownership-actions';

/**
 * The conversation's owner and state, in its header: who has it, whether it is open, done or
 * snoozed, and the way to the next state (Mark done, Snooze, Reopen). Shown once the conversation
 * has a first message: before, there is nothing to own.
 */
export function OwnershipBar({ threadRef, summary }: { threadRef: TThreadRef; summary: TThreadSummary }) {
  const actions = useOwnershipActions(threadRef);
  const { state, snoozedUntil } = summary;
  return (
    <div className="ownership-bar" role="group" aria-label="Ownership">
      <StateLabel state={state} snoozedUntil={snoozedUntil} />
      <AssigneeMenu threadRef={threadRef} assignee={summary.assignee} />
      <span className="button-row">
        {/* One button for both ways, so the focus stays on it when the state changes under it. */}
        <button type="button" className="button small" onClick={() => actions.setState(state === 'open' ? 'done' : 'open')}>
          {state === 'open' ? 'Mark done' : 'Reopen'}
        </button>
        {state !== 'done' && <SnoozeMenu onSnooze={(until) => actions.setState('snoozed', until)} onSnoozePicked={actions.snoozeUntil} />}
      </span>
    </div>
  );
}
