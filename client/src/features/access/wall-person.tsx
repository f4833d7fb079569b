import type { ReactNode } from 'react';
import { formatDate } from '../../lib/format';

type TWallPerson = { id: number; name: string; active: boolean; addedAt: Date; addedBy: { name: string } | null };

/**
 * One person on a wall, as the members and the screened lists show them: the name with what a
 * director should know (you, deactivated, and what the list adds), then when and by whom they were
 * put there (`added`: "Added", "Screened").
 */
export function WallPerson({
  person,
  me,
  added,
  badges,
  detail,
}: {
  person: TWallPerson;
  me: boolean;
  added: string;
  badges?: ReactNode;
  detail?: ReactNode;
}) {
  return (
    <span className="access-who">
      <span className="access-name">
        {person.name}
        {me && <span className="badge">You</span>}
        {!person.active && <span className="badge muted-badge">deactivated</span>}
        {badges}
      </span>
      {detail}
      <span className="access-meta">
        {added} {formatDate(person.addedAt)}
        {person.addedBy ? ` by ${person.addedBy.name}` : ''}
      </span>
    </span>
  );
}
