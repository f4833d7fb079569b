import { Link } from 'wouter';
import { formatDateTime, formatWaited } from '../../lib/format';
import { trpc } from '../../lib/trpc';
import { useMinuteClock } from '../../lib/use-minute-clock';
import { QueryStatus } from '../../ui/query-status';

/**
 * Directors only (the server refuses anyone else): each person's open conversations, how many wait
 * for a reply and how long the oldest has waited — marked when past the firm's reply target — with
 * the way to the conversations no one has and the overdue ones.
 */
export function WorkloadPanel() {
  const workload = trpc.inbox.workload.useQuery();
  const me = trpc.auth.me.useQuery(undefined, { staleTime: Infinity }).data;
  // The waits count up while the page is open.
  const now = useMinuteClock();
  return (
    <section className="card workload" aria-labelledby="workload-title" id="workload">
      <h2 id="workload-title">Workload</h2>
      <QueryStatus query={workload} loading="Loading workload…" padded={false}>
        {({ people, replyTargetMinutes }) => (
          <>
            <p className="muted">
              Open conversations by assignee. The reply target is {formatWaited(replyTargetMinutes * 60_000)}: a client who wrote last and
              has waited longer is overdue. In the inbox: <Link href="/inbox?filter=unassigned">unassigned conversations</Link> ·{' '}
              <Link href="/inbox?filter=overdue">overdue conversations</Link>.
            </p>
            {people.length === 0 ? (
              <p className="empty">No one has an open conversation.</p>
            ) : (
              <div className="table-scroll">
                <table className="workload-table">
                  <thead>
                    <tr>
                      <th scope="col">Person</th>
                      <th scope="col">Open</th>
                      <th scope="col">Awaiting reply</th>
                      <th scope="col">Oldest waiting</th>
                    </tr>
                  </thead>
                  <tbody>
                    {people.map(({ user, open, awaitingReply, oldestAwaitingAt }) => {
                      const waited = oldestAwaitingAt ? now - oldestAwaitingAt.getTime() : null;
                      const overdue = waited !== null && waited > replyTargetMinutes * 60_000;
                      return (
                        <tr key={user.id} data-user-id={user.id}>
                          <th scope="row">{user.id === me?.id ? <Link href="/inbox?filter=mine">{user.name} (you)</Link> : user.name}</th>
                          <td>{open}</td>
                          <td>{awaitingReply}</td>
                          <td className="waited-cell">
                            {oldestAwaitingAt && waited !== null ? (
                              <time dateTime={oldestAwaitingAt.toISOString()} title={formatDateTime(oldestAwaitingAt)}>
                                {formatWaited(waited)}
                              </time>
                            ) : (
                              <span className="muted">—</span>
                            )}
                            {overdue && <span className="overdue-mark"> Overdue</span>}
                          </td>
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
              </div>
            )}
          </>
        )}
      </QueryStatus>
    </section>
  );
}
