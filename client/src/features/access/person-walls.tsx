import { Link } from 'wouter';
import { formatDate } from '../../lib/format';
import { trpc, type TOutputs } from '../../lib/trpc';
import { QueryStatus } from '../../ui/query-status';

type TWall = TOutputs['access']['forPerson']['screens'][number];

/**
 * One person's screens and memberships (Settings › People), read only once opened: the list of
 * people costs one request, not one per person. Only matters the reader may see are named.
 */
export function PersonWalls({ userId, id }: { userId: number; id: string }) {
  const walls = trpc.access.forPerson.useQuery({ userId });
  return (
    <div className="person-walls" id={id}>
      <QueryStatus query={walls} loading="Loading walls…" padded={false}>
        {({ screens, memberships }) =>
          screens.length === 0 && memberships.length === 0 ? (
            <p className="muted small">No screens and no memberships.</p>
          ) : (
            <dl className="walls-list">
              {screens.length > 0 && <WallGroup title="Screened from" walls={screens} />}
              {memberships.length > 0 && <WallGroup title="Member of" walls={memberships} />}
            </dl>
          )
        }
      </QueryStatus>
    </div>
  );
}

function WallGroup({ title, walls }: { title: string; walls: TWall[] }) {
  return (
    <div>
      <dt>{title}</dt>
      {walls.map((wall) => (
        <dd key={`${wall.subjectType}-${wall.subjectId}`}>
          <Link href={wall.subjectType === 'client' ? `/clients/${wall.subjectId}` : `/cases/${wall.subjectId}`}>{wall.name}</Link>
          <span className="muted">
            {' '}
            · {wall.subjectType}, since {formatDate(wall.addedAt)}
          </span>
          {wall.reason && <span className="access-reason">{wall.reason}</span>}
        </dd>
      ))}
    </div>
  );
}
