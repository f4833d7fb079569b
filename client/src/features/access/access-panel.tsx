import { trpc } from '../../lib/trpc';
import { QueryStatus } from '../../ui/query-status';
import { MembersList } from './members-list';
import { RestrictedSwitch } from './restricted-switch';
import { ScreensList } from './screens-list';
import { useAccessChanges, type TSubject } from './use-access';

/**
 * Who may see a client or a case (server/access/README.md "Ethical walls"): directors only — the server refuses
 * anyone else, so staff are not shown a panel that could only fail.
 */
export function AccessPanel({ subject }: { subject: TSubject }) {
  const me = trpc.auth.me.useQuery(undefined, { staleTime: Infinity });
  if (me.data?.role !== 'director') return null;
  return <DirectorAccessPanel subject={subject} myId={me.data.id} />;
}

function DirectorAccessPanel({ subject, myId }: { subject: TSubject; myId: number }) {
  const access = trpc.access.get.useQuery(subject);
  const people = trpc.users.list.useQuery();
  const changes = useAccessChanges(subject);
  const kind = 'clientId' in subject ? 'client' : 'case';
  return (
    <section className="card access-panel" aria-labelledby="access-title">
      <h2 id="access-title">Who can see this {kind}</h2>
      <QueryStatus query={access} loading="Loading access…" padded={false}>
        {(wall) => {
          const context = { subject, wall, changes, readAt: access.dataUpdatedAt, people: people.data ?? [], myId };
          return (
            <>
              <RestrictedSwitch {...context} kind={kind} />
              <MembersList {...context} />
              <ScreensList {...context} kind={kind} />
            </>
          );
        }}
      </QueryStatus>
    </section>
  );
}
