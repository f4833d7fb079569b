import type { TMenuItem } from '../../ui/menu-button';
import type { TPersonRef } from './use-ownership-actions';

/**
 * Who a conversation may be given to, as a picker lists them: you first ("Dee Director (you)"),
 * then the others by name. The current assignee stays listed even when no longer among those who
 * may see it (deactivated, walled since), so the picker shows the truth until it is changed.
 */
export function peopleChoices(people: TPersonRef[], myId: number | undefined, current: TPersonRef | null): TPersonRef[] {
  const listed = current && !people.some((p) => p.id === current.id) ? [...people, current] : people;
  return listed.toSorted((a, b) => (a.id === myId ? -1 : b.id === myId ? 1 : a.name.localeCompare(b.name)));
}

export function personLabel(person: TPersonRef, myId: number | undefined): string {
  return person.id === myId ? `${person.name} (you)` : person.name;
}

/**
 * A person picker's menu items: `none` (Unassigned, Nobody) first, then `peopleChoices`, the one in
 * force marked — as a radio item (`checked`) or as the current choice of a plain menu (`current`).
 */
export function personMenuItems(options: {
  people: TPersonRef[];
  myId: number | undefined;
  current: TPersonRef | null;
  none: string;
  mark: 'checked' | 'current';
  onChoose: (userId: number | null) => void;
}): TMenuItem[] {
  const { people, myId, current, none, mark, onChoose } = options;
  return [
    { key: 'none', label: none, [mark]: current === null, onSelect: () => onChoose(null) },
    ...peopleChoices(people, myId, current).map((p) => ({
      key: String(p.id),
      label: personLabel(p, myId),
      [mark]: current?.id === p.id,
      onSelect: () => onChoose(p.id),
    })),
  ];
}
