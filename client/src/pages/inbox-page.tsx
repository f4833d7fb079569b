import { QueryStatus } from '../components/query-status';
import { ThreadList } from '../components/thread-list';
import { ThreadView } from '../components/thread-view';
import { threadKeyOf, trpc, type TThreadRef } from '../lib/trpc';

type TProps = { threadRef: TThreadRef | null };

export function InboxPage({ threadRef }: TProps) {
  const threads = trpc.inbox.threads.useQuery();
  const activeKey = threadRef
    ? threadKeyOf('clientId' in threadRef ? { clientId: threadRef.clientId, peerPhone: null } : { clientId: null, peerPhone: threadRef.phone })
    : null;
  const summary = threads.data?.find((t) => t.key === activeKey);
  return (
    <div className={`inbox ${threadRef ? 'has-thread' : ''}`}>
      <aside className="inbox-list card" aria-label="Inbox">
        <div className="inbox-list-header">
          <h1>Inbox</h1>
        </div>
        <QueryStatus query={threads} loading="Loading conversations…">
          {(list) => <ThreadList threads={list} activeKey={activeKey} />}
        </QueryStatus>
      </aside>
      <div className="inbox-thread card">
        {threadRef ? (
          <ThreadView key={activeKey} threadRef={threadRef} summary={summary} />
        ) : (
          <div className="empty-thread">
            <h2>Choose a conversation</h2>
            <p className="muted">Messages to and from the firm’s number, one conversation per client.</p>
          </div>
        )}
      </div>
    </div>
  );
}
