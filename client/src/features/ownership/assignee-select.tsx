import { trpc, type TThreadRef } from '../../lib/trpc';
import { peopleChoices, personLabel } from './people-choices';
import { useOwnershipActions, type TPersonRef } from './use-ownership-actions';

/**
 * The conversation's assignee, in the thread's header: a plain select (Tab, arrows, type-ahead),
 * listing the people who may see the conversation.
 */
export function AssigneeSelect({ threadRef, assignee }: { threadRef: TThreadRef; assignee: TPersonRef | null }) {
  const people = trpc.inbox.people.useQuery(threadRef);
  const actions = useOwnershipActions(threadRef);
  const myId = actions.me?.id;
  const choices = peopleChoices(people.data ?? [], myId, assignee);
  return (
    <label className="compact-field assignee-field">
      <span>Assignee</span>
      <select
        value={assignee ? String(assignee.id) : ''}
        onChange={(e) => actions.assign(e.target.value ? Number(e.target.value) : null)}
        aria-busy={people.isPending || undefined}
      >
        <option value="">Unassigned</option>
        {choices.map((p) => (
          <option key={p.id} value={p.id}>
            {personLabel(p, myId)}
          </option>
        ))}
      </select>
    </label>
  );
}
