import type { TPerson } from './use-access';

/** One person in a picker, with what a director should know before choosing them. */
export function PersonOption({ person, me, screened = false }: { person: TPerson; me: boolean; screened?: boolean }) {
  const notes = [me && 'you', person.deactivatedAt !== null && 'deactivated', screened && 'screened'].filter(Boolean);
  return <option value={person.id}>{notes.length ? `${person.name} (${notes.join(', ')})` : person.name}</option>;
}
