import { useState, useSyncExternalStore } from 'react';
import { Link } from 'wouter';
import { showInvisibleCharacters } from '../../../../shared/visible-text';
import { formatDateTime } from '../../lib/format';
import { trpc, type TOutputs } from '../../lib/trpc';
import { QueryStatus } from '../../ui/query-status';

type TAuditItem = TOutputs['audit']['list']['items'][number];
type TAction = TAuditItem['action'];

const ACTION_LABEL: Record<TAction, string> = {
  'auth.sign_in': 'Signed in',
  'auth.sign_in_failed': 'Failed sign-in',
  'auth.sign_in_limited': 'Sign-ins blocked (too many attempts)',
  'auth.sign_out': 'Signed out',
  'inbox.link': 'Linked a number to a client',
  'inbox.unlink': 'Unlinked a number',
  'client.number_add': 'Added a number',
  'client.number_remove': 'Removed a number',
  'export.create': 'Exported a chat record',
  'settings.check_connection': 'Checked the provider connection',
  'templates.refresh': 'Refreshed templates',
  'client.opt_out': 'Client opted out',
  'client.opt_in': 'Client opted back in',
  'chat.reconciled': 'A send of unknown outcome matched its receipt',
  'communication.refile': 'Moved messages to another case',
  'user.add': 'Added a user',
  'user.role_change': 'Changed a role',
  'user.deactivate': 'Deactivated a user',
  'user.reactivate': 'Reactivated a user',
  'access.restrict': 'Restricted a matter to its members',
  'access.unrestrict': 'Lifted a restriction',
  'access.member_add': 'Added a member to a matter',
  'access.member_remove': 'Removed a member from a matter',
  'access.screen': 'Screened someone from a matter',
  'access.unscreen': 'Lifted a screen',
  'access.denied': 'Tried to open a walled matter',
  'inbox.assign': 'Assigned a conversation',
  'inbox.state': 'Changed a conversation’s state',
  'client.responsible': 'Named a client’s responsible person',
  'case.status': 'Opened or closed a case',
  'media.view': 'Opened a file',
  'hold.place': 'Placed a legal hold',
  'hold.release': 'Released a legal hold',
  'retention.destroy': 'Destroyed records past retention',
  'erasure.request': 'Recorded an erasure request',
  'erasure.decide': 'Decided an erasure request',
  'audit.verify': 'Verified the trail',
};

// What the trail shows comes from outside too (a typed email, a client's name, a file's name): a
// right-to-left override or a zero-width character in it would make an entry read as something it
// is not, so each is shown by its code.
const visible = showInvisibleCharacters;

/** A few words of an event's detail: the numbers, counts and names in it, no raw JSON. */
function describeDetail(detail: Record<string, unknown>): string {
  return Object.entries(detail)
    .filter(
      ([key, value]) =>
        key !== 'ids' && key !== 'sha256' && (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'),
    )
    .map(([key, value]) => `${visible(key.replace(/_/g, ' '))}: ${visible(String(value))}`)
    .join(' · ');
}

/** What an event was about: a client or a case links to its page, a person is named. */
function AuditSubject({ subject, userNames }: { subject: string; userNames: Map<number, string> }) {
  const [, kind, id] = /^(client|case|user):(\d+)$/.exec(subject) ?? [];
  if (!kind) return <>{visible(subject)}</>;
  if (kind === 'user') return <>{visible(userNames.get(Number(id)) ?? `User ${id}`)}</>;
  return <Link href={`/${kind === 'client' ? 'clients' : 'cases'}/${id}`}>{`${kind === 'client' ? 'Client' : 'Case'} ${id}`}</Link>;
}

// Six columns do not fit a phone: there each event is a short card (what and when, who and from where, on what).
const NARROW = '(max-width: 640px)';
const subscribeToNarrow = (onChange: () => void) => {
  const query = window.matchMedia(NARROW);
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
};
const isNarrow = () => window.matchMedia(NARROW).matches;

/** An exported file's fingerprint, in full (it is compared character by character). */
function AuditHash({ detail }: { detail: Record<string, unknown> }) {
  if (typeof detail.sha256 !== 'string') return null;
  return (
    <code className="audit-hash" title="SHA-256 of the exported file">
      SHA-256 {visible(detail.sha256)}
    </code>
  );
}

/** Who did what, when and from where (directors; the server refuses anyone else). */
export function AuditPage() {
  const [action, setAction] = useState<TAction | ''>('');
  const [userId, setUserId] = useState<number | ''>('');
  const [before, setBefore] = useState<number[]>([]); // the pages loaded after the first
  const users = trpc.users.list.useQuery();
  const filter = { ...(action ? { action } : {}), ...(userId ? { userId } : {}) };
  const first = trpc.audit.list.useQuery({ ...filter, limit: 50 });
  const older = trpc.useQueries((t) => before.map((b) => t.audit.list({ ...filter, limit: 50, before: b })));
  const pages = [first.data, ...older.map((q) => q.data)].filter((p): p is NonNullable<typeof p> => Boolean(p));
  const items = pages.flatMap((p) => p.items);
  const next = pages.length === before.length + 1 ? pages[pages.length - 1]!.nextBefore : null;
  const narrow = useSyncExternalStore(subscribeToNarrow, isNarrow);
  const userNames = new Map((users.data ?? []).map((u) => [u.id, u.name]));
  const changeFilter = (apply: () => void) => {
    apply();
    setBefore([]);
  };

  return (
    <div className="page">
      <div className="page-header">
        <div>
          <h1>Audit trail</h1>
          <p className="muted">
            Every sign-in, link, export and setting change: who, when and from which address. Entries cannot be changed or removed.
          </p>
        </div>
      </div>
      <section className="card" aria-label="Audit events">
        <div className="filters" role="group" aria-label="Filter the trail">
          <label className="compact-field">
            <span>Action</span>
            <select value={action} onChange={(e) => changeFilter(() => setAction(e.target.value as TAction | ''))}>
              <option value="">All actions</option>
              {Object.entries(ACTION_LABEL).map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          <label className="compact-field">
            <span>Who</span>
            <select value={userId} onChange={(e) => changeFilter(() => setUserId(e.target.value ? Number(e.target.value) : ''))}>
              <option value="">Everyone</option>
              {users.data?.map((u) => (
                <option key={u.id} value={u.id}>
                  {visible(u.name)}
                </option>
              ))}
            </select>
          </label>
        </div>
        {/* The first page says whether the trail is loading or could not be read; older pages add to it. */}
        <QueryStatus query={first} loading="Loading…" padded={false}>
          {() =>
            items.length === 0 ? (
              <p className="empty">No events match.</p>
            ) : narrow ? (
              <ol className="audit-list" aria-label="Audit events, newest first">
                {items.map((event) => {
                  const detail = describeDetail(event.detail);
                  // "Sam Staff signed in" already says on whom: the subject is left out when it is the actor.
                  const subject = event.subject === `user:${event.user?.id}` ? '' : event.subject;
                  return (
                    <li key={event.id} data-action={event.action}>
                      <div className="audit-list-head">
                        <strong>{ACTION_LABEL[event.action]}</strong>
                        <time dateTime={event.at.toISOString()}>{formatDateTime(event.at)}</time>
                      </div>
                      <div className="audit-list-line">
                        {event.user ? visible(event.user.name) : <span className="muted">System</span>}
                        {event.ip && <span className="muted"> · from {visible(event.ip.replace(/^::ffff:/, ''))}</span>}
                      </div>
                      {(subject || detail) && (
                        <div className="audit-list-line muted">
                          {subject && <AuditSubject subject={subject} userNames={userNames} />}
                          {subject && detail && ' · '}
                          {detail}
                        </div>
                      )}
                      <AuditHash detail={event.detail} />
                    </li>
                  );
                })}
              </ol>
            ) : (
              <table className="audit-table">
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">Who</th>
                    <th scope="col">What</th>
                    <th scope="col">On</th>
                    <th scope="col">Detail</th>
                    <th scope="col">From</th>
                  </tr>
                </thead>
                <tbody>
                  {items.map((event) => (
                    <tr key={event.id} data-action={event.action}>
                      <td>
                        <time dateTime={event.at.toISOString()}>{formatDateTime(event.at)}</time>
                      </td>
                      <td>{event.user ? visible(event.user.name) : <span className="muted">System</span>}</td>
                      <td>{ACTION_LABEL[event.action]}</td>
                      <td className="audit-subject">
                        <AuditSubject subject={event.subject} userNames={userNames} />
                      </td>
                      <td className="audit-detail">
                        {describeDetail(event.detail)}
                        <AuditHash detail={event.detail} />
                      </td>
                      <td className="audit-ip">{event.ip ? visible(event.ip.replace(/^::ffff:/, '')) : '—'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )
          }
        </QueryStatus>
        {next !== null && (
          <button type="button" className="button ghost" onClick={() => setBefore((b) => [...b, next])}>
            Show older
          </button>
        )}
      </section>
    </div>
  );
}
