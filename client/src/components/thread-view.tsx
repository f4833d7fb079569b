import { useEffect, useMemo, useRef, useState } from 'react';
import { Link } from 'wouter';
import { trpc, type TThreadItem, type TThreadRef, type TThreadSummary } from '../lib/trpc';
import { Composer } from './composer';
import { MessageBubble } from './message-bubble';
import { PhoneNumber } from './phone-number';
import { QueryStatus } from './query-status';
import { ReplyWindow } from './reply-window';
import { useToast } from './toasts';

type TProps = { threadRef: TThreadRef; summary: TThreadSummary | undefined };

let optimisticId = -1;

export function ThreadView({ threadRef, summary }: TProps) {
  const utils = trpc.useUtils();
  const toast = useToast();
  const thread = trpc.inbox.thread.useQuery(threadRef);
  const client = trpc.clients.get.useQuery({ clientId: 'clientId' in threadRef ? threadRef.clientId : 0 }, { enabled: 'clientId' in threadRef });
  const markRead = trpc.inbox.markRead.useMutation();
  const send = trpc.chat.send.useMutation();
  const retry = trpc.chat.retry.useMutation({ onError: (error) => toast('error', error.message) });
  const listRef = useRef<HTMLOListElement>(null);

  const items = thread.data?.items ?? [];
  const unreadInbound = items.some((i) => i.direction === 'inbound' && !i.readAt);
  const lastInboundAt = useMemo(() => {
    const inbound = items.filter((i) => i.direction === 'inbound').map((i) => (i.providerTimestamp ?? i.createdAt).getTime());
    return inbound.length ? new Date(Math.max(...inbound)) : null;
  }, [items]);

  // Opening a thread (and new messages arriving in it while open) marks it read.
  useEffect(() => {
    if (!thread.data || !unreadInbound || markRead.isPending) return;
    markRead.mutate(threadRef, {
      onSuccess: () => {
        const now = new Date();
        utils.inbox.thread.setData(threadRef, (d) => (d ? { items: d.items.map((i) => (i.direction === 'inbound' && !i.readAt ? { ...i, readAt: now } : i)) } : d));
        utils.inbox.threads.setData(undefined, (list) => list?.map((t) => (t.key === summary?.key ? { ...t, unread: 0 } : t)));
      },
    });
  }, [thread.data, unreadInbound]); // eslint-disable-line react-hooks/exhaustive-deps

  useEffect(() => {
    listRef.current?.lastElementChild?.scrollIntoView({ block: 'end' });
  }, [items.length]);

  const onSend = async (body: string, caseId: number | undefined): Promise<boolean> => {
    const temp: TThreadItem = {
      id: optimisticId--,
      type: 'chat',
      direction: 'outbound',
      subject: null,
      body,
      status: 'pending',
      error: null,
      clientId: 'clientId' in threadRef ? threadRef.clientId : null,
      caseId: caseId ?? null,
      peerPhone: 'phone' in threadRef ? threadRef.phone : (client.data?.phone ?? null),
      metadata: {},
      providerTimestamp: null,
      readAt: null,
      createdAt: new Date(),
      receipts: [],
    };
    utils.inbox.thread.setData(threadRef, (d) => (d ? { items: [...d.items, temp] } : d));
    const dropTemp = () => utils.inbox.thread.setData(threadRef, (d) => (d ? { items: d.items.filter((i) => i.id !== temp.id) } : d));
    try {
      const sent = await send.mutateAsync('clientId' in threadRef ? { clientId: threadRef.clientId, body, caseId } : { to: threadRef.phone, body });
      utils.inbox.thread.setData(threadRef, (d) => {
        if (!d) return d;
        const withoutTemp = d.items.filter((i) => i.id !== temp.id);
        // The live update may have brought the stored record already.
        if (withoutTemp.some((i) => i.id === sent.id)) return { items: withoutTemp };
        return { items: [...withoutTemp, { ...sent, readAt: null, receipts: [] }] };
      });
      return true;
    } catch (error) {
      const message = (error as Error).message;
      toast('error', message);
      const code = (error as { data?: { code?: string } }).data?.code;
      dropTemp();
      if (code === 'BAD_GATEWAY') {
        // The server kept the failed record with its error and a Retry: show it.
        void utils.inbox.thread.invalidate(threadRef);
        return true;
      }
      return false; // nothing was stored: the composer gets the text back
    }
  };

  const onRetry = (id: number) => {
    retry.mutate({ id }, { onSuccess: () => void utils.inbox.thread.invalidate(threadRef) });
  };

  const name = client.data?.name ?? summary?.clientName ?? summary?.contactName ?? null;
  const phone = 'phone' in threadRef ? threadRef.phone : client.data?.phone;

  return (
    <section className="thread" aria-label={`Conversation with ${name ?? phone ?? 'contact'}`}>
      <header className="thread-header">
        <Link href="/inbox" className="back-link">
          ← Inbox
        </Link>
        <div className="thread-who">
          <h2>{name ?? <PhoneNumber value={phone} />}</h2>
          <p className="muted">
            <PhoneNumber value={phone} />
            {'clientId' in threadRef && (
              <>
                {' · '}
                <Link href={`/clients/${threadRef.clientId}`}>Client file</Link>
              </>
            )}
          </p>
        </div>
      </header>
      {'phone' in threadRef && summary && <LinkToClient phone={threadRef.phone} summary={summary} />}
      <QueryStatus query={thread} loading="Loading conversation…">
        {({ items: messages }) =>
          messages.length === 0 ? (
            <p className="empty">No messages yet. Say hello below.</p>
          ) : (
            <ol className="messages" ref={listRef} aria-label="Messages" aria-live="polite">
              {messages.map((item) => (
                <MessageBubble key={item.id} item={item} onRetry={onRetry} retrying={retry.isPending && retry.variables?.id === item.id} />
              ))}
            </ol>
          )
        }
      </QueryStatus>
      <ReplyWindow lastInboundAt={lastInboundAt} />
      <Composer threadRef={threadRef} clientName={name} onSend={onSend} />
    </section>
  );
}

function LinkToClient({ phone, summary }: { phone: string; summary: TThreadSummary }) {
  const [clientId, setClientId] = useState('');
  const utils = trpc.useUtils();
  const toast = useToast();
  const clients = trpc.clients.list.useQuery(undefined, { enabled: summary.candidates.length === 0 });
  const link = trpc.inbox.link.useMutation({
    onSuccess: ({ linked }) => {
      toast('success', `${linked} message${linked === 1 ? '' : 's'} filed under the client.`);
      void utils.inbox.invalidate();
      void utils.timeline.invalidate();
    },
    onError: (error) => toast('error', error.message),
  });
  const options = summary.candidates.length ? summary.candidates : (clients.data ?? []);
  return (
    <form
      className={`link-banner ${summary.match}`}
      onSubmit={(e) => {
        e.preventDefault();
        if (clientId) link.mutate({ phone, clientId: Number(clientId) });
      }}
    >
      <p>
        {summary.match === 'ambiguous'
          ? `This number's last 9 digits match ${summary.candidates.length} clients, so it was not filed automatically. Choose who it is:`
          : 'This number is not on any client file. Link it to a client to file its messages:'}
      </p>
      <label className="visually-hidden" htmlFor="link-client">
        Client
      </label>
      <select id="link-client" value={clientId} onChange={(e) => setClientId(e.target.value)} required>
        <option value="">Choose a client…</option>
        {options.map((c) => (
          <option key={c.id} value={c.id}>
            {c.name}
          </option>
        ))}
      </select>
      <button type="submit" className="button small" disabled={!clientId || link.isPending}>
        Link to client
      </button>
    </form>
  );
}
