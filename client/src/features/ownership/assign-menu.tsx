import { useState } from 'react';
import { trpc, type TThreadRef } from '../../lib/trpc';
import { MenuButton } from '../../ui/menu-button';
import { personMenuItems } from './people-choices';
import { useOwnershipActions, type TPersonRef } from './use-ownership-actions';

/**
 * An inbox row's assignee, as a menu button beside the row's link (a link holds no button): it
 * shows who has the conversation and, opened, who may have it. The people are asked for when it
 * is first opened, not for every row of the list.
 */
export function AssignMenu({ threadRef, title, assignee }: { threadRef: TThreadRef; title: string; assignee: TPersonRef | null }) {
  const [asked, setAsked] = useState(false);
  const people = trpc.inbox.people.useQuery(threadRef, { enabled: asked });
  const actions = useOwnershipActions(threadRef);
  const myId = actions.me?.id;
  const shown = assignee ? (assignee.id === myId ? 'You' : assignee.name) : 'Assign';
  return (
    <MenuButton
      className={`assign-button${assignee ? ' assigned' : ''}`}
      ariaLabel={`Assign ${title} (${assignee ? `now ${assignee.id === myId ? 'you' : assignee.name}` : 'unassigned'})`}
      menuLabel={`Assign ${title} to`}
      align="end"
      onOpenChange={(open) => {
        if (open) setAsked(true);
      }}
      error={people.isError ? people.error.message : null}
      loading="Loading people…"
      items={
        people.data
          ? personMenuItems({ people: people.data, myId, current: assignee, none: 'Unassigned', mark: 'checked', onChoose: actions.assign })
          : null
      }
    >
      <span className="assign-avatar" aria-hidden="true">
        {assignee ? initialsOf(assignee.name) : '+'}
      </span>
      <span className="assign-name">{shown}</span>
    </MenuButton>
  );
}

function initialsOf(name: string): string {
  const words = name.trim().split(/\s+/);
  return ((words[0]?.[0] ?? '') + (words.length > 1 ? (words.at(-1)?.[0] ?? '') : '')).toUpperCase();
}
