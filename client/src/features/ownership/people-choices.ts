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
