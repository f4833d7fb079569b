import { trpc, type TThreadRef } from '../../lib/trpc';
import { MenuButton } from '../../ui/menu-button';
import { personLabel, personMenuItems } from './people-choices';
import { useOwnershipActions, type TPersonRef } from './use-ownership-actions';

/**
 * The conversation's assignee, in the thread's header: a menu button ("Assignee: Sam Staff") whose
 * items are the people who may see the conversation, and Unassigned. Not a select: a closed select
 * changes on each arrow key, and each change would be saved, audited and told to people. Picking
 * the one it already has saves nothing.
 */
export function AssigneeMenu({ threadRef, assignee }: { threadRef: TThreadRef; assignee: TPersonRef | null }) {
  // Asked for with the header, not on opening: the one menu of the page opens with its people.
  const people = trpc.inbox.people.useQuery(threadRef);
  const actions = useOwnershipActions(threadRef);
  const myId = actions.me?.id;
  const assignOnce = (userId: number | null) => {
    if (userId !== (assignee?.id ?? null)) actions.assign(userId);
  };
  return (
    <MenuButton
      className="button small ghost owner-button"
      menuLabel="Assign to"
      error={people.isError ? people.error.message : null}
      loading="Loading people…"
      items={
        people.data
          ? personMenuItems({ people: people.data, myId, current: assignee, none: 'Unassigned', mark: 'current', onChoose: assignOnce })
          : null
      }
    >
      {/* One line of text, so the name is read (and found) as "Assignee: Sam Staff". */}
      <span className="owner-text">
        <span className="owner-role">Assignee:</span> {assignee ? personLabel(assignee, myId) : 'Unassigned'}
      </span>
      <span aria-hidden="true">▾</span>
    </MenuButton>
  );
}
