import { useQueryClient } from '@tanstack/react-query';
import { Fragment, useEffect, useEffectEvent, useMemo, useRef, useState, type DragEvent } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { formatDateTime, usePhoneFormatter } from '../lib/format';
import { EVERY_THREAD } from '../lib/live-updates';
import { newEchoId } from '../lib/echo-id';
import { olderOf } from '../lib/older-pages';
import { enqueueSend, useQueuedSends } from '../lib/outbox';
import { placeInPages } from '../lib/paged-cache';
import { queuedItemOf, queuedToShow, type TQueuedCall, type TQueuedSend } from '../lib/queued-sends';
import { itemsOf, updateThreadPages, useThreadPages } from '../lib/thread-pages';
import { UPLOAD_LIMITS_TEXT } from '../lib/upload-limits-text';
import { useComposerHeight } from '../lib/use-composer-height';
import { useQuotedOf } from '../lib/use-quoted-of';
import { replyNumbersOf } from '../../../shared/phone';
import { threadKeyOfRef, trpc, type TThreadItem, type TThreadRef, type TThreadSummary } from '../lib/trpc';
import { uploadFile, type TUploaded } from '../lib/upload-file';
import { Composer } from './composer';
import { ConfirmButton } from './confirm-button';
import { LinkNumberBanner } from './link-number-banner';
import { MessageBubble } from './message-bubble';
import { MessageList, type TMeasure, type TMessageListApi, type TRow } from './message-list';
import { OptOutBanner } from './opt-out-banner';
import { PhoneNumber } from './phone-number';
import { QueryStatus } from './query-status';
import { ReplyWindow, windowTimeLeft } from './reply-window';
import type { TTemplateChoice } from './template-composer';
import { useToast } from './toasts';

type TProps = { threadRef: TThreadRef; summary: TThreadSummary | undefined };

let optimisticId = -1;

export function ThreadView({ threadRef, summary }: TProps) {
  const utils = trpc.useUtils();
  const toast = useToast();
  const queryClient = useQueryClient();
  // Opened from a search hit (?message=id): that message, not the newest, is brought into view.
  const search = useSearch();
  const focusId = Number(new URLSearchParams(search).get('message')) || null;
  const [seeking, setSeeking] = useState(focusId !== null);
  const thread = useThreadPages(threadRef, seeking);
  const client = trpc.clients.get.useQuery(
    { clientId: 'clientId' in threadRef ? threadRef.clientId : 0 },
    { enabled: 'clientId' in threadRef },
  );
  // Each bubble says which case it is filed on: the client's cases (the composer's picker asks the same).
  const cases = trpc.cases.listForClient.useQuery(
    { clientId: 'clientId' in threadRef ? threadRef.clientId : 0 },
    { enabled: 'clientId' in threadRef },
  );
  const caseById = useMemo(() => new Map((cases.data ?? []).map((c) => [c.id, c])), [cases.data]);
  const formatNumber = usePhoneFormatter();
  const markRead = trpc.inbox.markRead.useMutation();
  const me = trpc.auth.me.useQuery(undefined, { staleTime: Infinity });
  const send = trpc.chat.send.useMutation();
  const threadKey = threadKeyOfRef(threadRef);
  const queued = useQueuedSends(threadKey);
  const retry = trpc.chat.retry.useMutation({ onError: (error) => toast('error', error.message) });
  const listRef = useRef<TMessageListApi>(null);
  const measureCompose = useComposerHeight();

  const items = useMemo(() => itemsOf(thread.data), [thread.data]);
  // What waits in the outbox comes after what the server has, until the server has it too.
  const shownItems = useMemo(() => [...withoutArrivedTemps(items), ...queuedToShow(items, queued).map(queuedItemOf)], [items, queued]);
  if (seeking && (!focusId || items.some((i) => i.id === focusId) || (thread.data && !thread.hasNextPage))) setSeeking(false);
  // Read when the newest message has been in view, not while the reader is further up.
  const [atEnd, setAtEnd] = useState(true);
  const clientNumbers = client.data?.numbers;
  // The numbers a reply may go to and the default, by the server's own rule (shared/phone.ts).
  const reply = useMemo(() => {
    if ('phone' in threadRef) return { numbers: [threadRef.phone], defaultNumber: threadRef.phone };
    const inboundNewestFirst = items
      .filter((i) => i.direction === 'inbound' && i.peerPhone)
      .map((i) => i.peerPhone!)
      .reverse();
    return replyNumbersOf(
      (clientNumbers ?? []).map((n) => n.digits),
      inboundNewestFirst,
    );
  }, [threadRef, items, clientNumbers]);
  const replyNumbers = reply.numbers;
  // A reply goes to the number that last wrote (else the primary) unless a person chooses another.
  const [chosenNumber, setChosenNumber] = useState<string | null>(null);
  const to = chosenNumber && replyNumbers.includes(chosenNumber) ? chosenNumber : reply.defaultNumber;
  // The 24-hour window belongs to a number: the one the reply will go to.
  const lastInboundAt = useMemo(() => {
    const inbound = items
      .filter((i) => i.direction === 'inbound' && i.peerPhone === to)
      .map((i) => (i.providerTimestamp ?? i.createdAt).getTime());
    if (inbound.length) return new Date(Math.max(...inbound));
    // None among the pages loaded: with one number, the conversation's own last inbound (from its summary).
    return replyNumbers.length <= 1 ? (summary?.lastInboundAt ?? null) : null;
  }, [items, to, replyNumbers, summary]);
  const unreadInbound = items.some((i) => i.direction === 'inbound' && !i.readAt);
  // A message arriving while the conversation is open is announced once (the list itself is not a
  // live region: its rows are drawn as they scroll into view).
  const newest = items.at(-1);
  const [announced, setAnnounced] = useState<{ id: number; text: string } | null>(null);
  const windowOpen = windowTimeLeft(lastInboundAt, new Date()) !== null;
  // Templates first outside the window; a person may switch either way.
  const [chosenMode, setChosenMode] = useState<'template' | 'text' | null>(null);
  const mode = chosenMode ?? (windowOpen ? 'text' : 'template');
  // A file to send: picked or pasted in the composer, or dropped anywhere on the conversation.
  const [file, setFile] = useState<File | null>(null);
  const [dragging, setDragging] = useState(false);
  const hasFiles = (event: DragEvent) => event.dataTransfer.types.includes('Files');
  const dropHandlers = {
    onDragOver: (event: DragEvent) => {
      if (!hasFiles(event)) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = 'copy';
      setDragging(true);
    },
    onDragLeave: (event: DragEvent) => {
      if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setDragging(false);
    },
    onDrop: (event: DragEvent) => {
      if (!hasFiles(event)) return;
      event.preventDefault();
      setDragging(false);
      const dropped = event.dataTransfer.files[0];
      if (!dropped) return;
      setFile(dropped);
      setChosenMode('text'); // files go with the free-text composer, not a template
    },
  };

  // Opening a thread (and new messages arriving in it while open) marks it read.
  const markOpenThreadRead = useEffectEvent(() => {
    if (markRead.isPending) return;
    markRead.mutate(threadRef, {
      onSuccess: () => {
        const now = new Date();
        updateThreadPages(queryClient, threadRef, (pages) =>
          pages.map((page) => page.map((i) => (i.direction === 'inbound' && !i.readAt ? { ...i, readAt: now } : i))),
        );
        utils.inbox.threads.setInfiniteData(
          EVERY_THREAD,
          (data) =>
            data && {
              ...data,
              pages: data.pages.map((page) => ({
                ...page,
                threads: page.threads.map((t) => (t.key === threadKey ? { ...t, unread: 0 } : t)),
              })),
            },
        );
        utils.inbox.threadSummary.setData(threadRef, (s) => s && { ...s, unread: 0 });
        void utils.inbox.unreadCount.invalidate();
        void utils.inbox.threads.invalidate({ filter: 'unread' });
      },
    });
  });
  useEffect(() => {
    if (thread.data && unreadInbound && atEnd) markOpenThreadRead();
  }, [thread.data, unreadInbound, atEnd]);

  /**
   * A file's message: shown at once, sent once its upload is done, then the stored record takes its
   * place (or its failure). A file is not queued: it lives in the page's memory only.
   */
  const sendOptimistically = async (
    body: string,
    caseId: number | undefined,
    call: () => Promise<TThreadItem | Omit<TThreadItem, 'readAt' | 'receipts'>>,
    attachments: TThreadItem['attachments'] = [],
  ): Promise<boolean> => {
    const temp: TThreadItem = {
      id: optimisticId--,
      type: 'chat',
      direction: 'outbound',
      subject: null,
      body,
      status: 'pending',
      error: null,
      attachments,
      sentBy: me.data ? { id: me.data.id, name: me.data.name } : null,
      clientId: 'clientId' in threadRef ? threadRef.clientId : null,
      caseId: caseId ?? null,
      peerPhone: to,
      metadata: {},
      providerTimestamp: null,
      readAt: null,
      createdAt: new Date(),
      receipts: [],
    };
    updateThreadPages(queryClient, threadRef, (pages) => pages.map((page, i) => (i === 0 ? [...page, temp] : page)));
    requestAnimationFrame(() => listRef.current?.toEnd()); // what one sends is shown, wherever one was reading
    const withoutTemp = (pages: TThreadItem[][]) => pages.map((page) => page.filter((i) => i.id !== temp.id));
    const dropTemp = () => updateThreadPages(queryClient, threadRef, withoutTemp);
    try {
      const sent = await call();
      // The live update may have brought the stored record already: placeInPages replaces it then.
      updateThreadPages(queryClient, threadRef, (pages, hasOlder) =>
        placeInPages(withoutTemp(pages), { ...sent, readAt: null, receipts: [] }, 'oldest-first', hasOlder),
      );
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
      return false; // nothing was stored: the composer keeps the file and its caption
    }
  };

  /**
   * A text or a template: kept in the outbox first (in this browser, so neither a lost connection
   * nor a closed tab loses it), shown at once with its clock, and sent as soon as it can be.
   */
  const sendQueued = async (call: TQueuedCall, shown: Pick<TQueuedSend['shown'], 'body' | 'caseId' | 'template'>): Promise<boolean> => {
    if (!me.data) return false;
    const queuedAt = Date.now();
    await enqueueSend({
      echoId: newEchoId(),
      userId: me.data.id,
      threadKey,
      threadRef,
      tempId: -(queuedAt * 1000 + Math.floor(Math.random() * 1000)),
      queuedAt,
      call,
      shown: {
        ...shown,
        clientId: 'clientId' in threadRef ? threadRef.clientId : null,
        peerPhone: to,
        sentBy: { id: me.data.id, name: me.data.name },
      },
      attempts: 0,
    });
    requestAnimationFrame(() => listRef.current?.toEnd()); // what one sends is shown, wherever one was reading
    return true;
  };

  // Always the number shown in the composer: nothing is sent to a number a person did not see.
  const recipientOf = (caseId: number | undefined) =>
    'clientId' in threadRef ? { clientId: threadRef.clientId, to: to ?? undefined, caseId } : { to: threadRef.phone };
  const onSend = (body: string, caseId: number | undefined) =>
    sendQueued({ procedure: 'send', input: { ...recipientOf(caseId), body } }, { body, caseId: caseId ?? null, template: null });
  /** Uploads first (the composer shows progress), then sends by the upload's id like any message. */
  const onSendFile = async (file: File, caption: string, caseId: number | undefined, onProgress: (fraction: number) => void) => {
    let uploaded: TUploaded;
    try {
      uploaded = await uploadFile(file, onProgress);
    } catch (error) {
      return { ok: false as const, error: (error as Error).message };
    }
    const preview = {
      id: optimisticId--,
      kind: uploaded.kind,
      mimeType: uploaded.mimeType,
      fileName: uploaded.fileName,
      size: uploaded.size,
      state: 'stored' as const,
      error: null,
      nextAttemptAt: null,
    };
    const ok = await sendOptimistically(
      caption,
      caseId,
      () => send.mutateAsync({ ...recipientOf(caseId), body: caption, attachmentId: uploaded.attachmentId }),
      [preview],
    );
    return ok ? { ok: true as const } : { ok: false as const, error: null };
  };
  const quotedOf = useQuotedOf(items);
  // The case the conversation's recent messages are on (the newest of the last 20 that has one):
  // what the composer offers for the next message.
  const proposedCaseId = useMemo(() => items.slice(-20).findLast((item) => item.caseId !== null)?.caseId ?? undefined, [items]);
  const showMessage = (id: number) => listRef.current?.show(id);

  const onSendTemplate = (choice: TTemplateChoice, caseId: number | undefined) =>
    sendQueued(
      { procedure: 'sendTemplate', input: { ...recipientOf(caseId), ...choice } },
      { body: `Template: ${choice.name}`, caseId: caseId ?? null, template: choice },
    );

  /** `confirm`: a send whose outcome is unknown, resent after the person said it may go twice. */
  const onRetry = (id: number, confirm: boolean) => {
    retry.mutate(confirm ? { id, confirm } : { id }, { onSuccess: () => void utils.inbox.thread.invalidate(threadRef) });
  };

  // The conversation has loaded when its messages and (for a client) the client's numbers have: a
  // reply goes to one of them. A failure of either is shown with one Retry for both.
  const clientFailed = 'clientId' in threadRef && client.isError;
  const conversation = {
    isPending: thread.isPending || ('clientId' in threadRef && client.isPending),
    isError: thread.isError || clientFailed,
    error: thread.error ?? (clientFailed ? client.error : null),
    data: thread.data && (!('clientId' in threadRef) || client.data) ? thread.data : undefined,
    isFetching: thread.isFetching || client.isFetching,
    refetch: () => Promise.all([thread.isError ? thread.refetch() : null, clientFailed ? client.refetch() : null]),
  };
  // An empty profile name is no name: the number stands for the contact then.
  const name = client.data?.name || summary?.clientName || summary?.contactName || null;
  const phone = 'phone' in threadRef ? threadRef.phone : client.data?.phone;
  const showNumbers = replyNumbers.length > 1 || items.some((i) => i.peerPhone && i.peerPhone !== to);
  const primary = clientNumbers?.find((n) => n.primary)?.digits ?? null;
  // Under the name, the numbers; a number with no name is the heading itself, and is not said twice.
  const headerNumbers = name ? replyNumbers : replyNumbers.filter((n) => n !== phone);
  /** Who wrote it, as a screen reader announces each message. */
  const speakerOf = (item: TThreadItem) => {
    if (item.direction === 'inbound')
      return (showNumbers ? item.metadata.contact_name : null) ?? name ?? (item.peerPhone ? formatNumber(item.peerPhone) : 'The contact');
    if (item.sentBy) return item.sentBy.id === me.data?.id ? 'You' : item.sentBy.name;
    return item.metadata.echo ? "The firm's phone" : 'The firm';
  };
  // Once per newest message, not per render. The newest when the conversation loaded is not new.
  const firstNewest = useRef<number | null | undefined>(undefined);
  const announceNewest = useEffectEvent(() => {
    if (!thread.data) return;
    if (firstNewest.current === undefined) {
      firstNewest.current = newest?.id ?? null;
      return;
    }
    if (!newest || newest.direction !== 'inbound' || newest.id === firstNewest.current || newest.id === announced?.id) return;
    setAnnounced({ id: newest.id, text: `New message from ${speakerOf(newest)}: ${newest.body || 'a file'}` });
  });
  const loaded = thread.data !== undefined;
  useEffect(() => announceNewest(), [newest?.id, loaded]);
  // Numbers linked to this client after it was created, shown where they joined the conversation.
  const joined = (clientNumbers ?? []).filter((n) => !n.primary && n.addedBy);

  return (
    <section
      className={`thread ${dragging ? 'dragging' : ''}`}
      aria-label={`Conversation with ${name ?? phone ?? 'contact'}`}
      {...dropHandlers}
    >
      {dragging && (
        <div className="drop-overlay" aria-hidden="true">
          <strong>Drop the file to attach it</strong>
          <span>{UPLOAD_LIMITS_TEXT}</span>
        </div>
      )}
      <header className="thread-header">
        <Link href="/inbox" className="back-link">
          ← Inbox
        </Link>
        <div className="thread-who">
          <h2>{name ?? <PhoneNumber value={phone} />}</h2>
          {(name || headerNumbers.length > 0 || 'clientId' in threadRef) && (
            <p className="muted">
              {headerNumbers.length ? (
                headerNumbers.map((n, i) => (
                  <Fragment key={n}>
                    {i > 0 && ', '}
                    <PhoneNumber value={n} />
                  </Fragment>
                ))
              ) : (
                <PhoneNumber value={phone} />
              )}
              {'clientId' in threadRef && (
                <>
                  {' · '}
                  <Link href={`/clients/${threadRef.clientId}`}>Client file</Link>
                </>
              )}
            </p>
          )}
        </div>
      </header>
      {'phone' in threadRef && summary && <LinkNumberBanner phone={threadRef.phone} summary={summary} />}
      {client.data && <OptOutBanner client={client.data} />}
      <QueryStatus query={conversation} loading="Loading conversation…">
        {() =>
          shownItems.length === 0 ? (
            <p className="empty">No messages yet. Say hello below.</p>
          ) : (
            <MessageList
              ref={listRef}
              focusId={focusId}
              onAtEnd={setAtEnd}
              older={olderOf(thread)}
              rows={withDividers(shownItems, joined).map((entry): TRow =>
                'item' in entry
                  ? {
                      key: `m${entry.item.id}`,
                      render: (measure) => (
                        <MessageBubble
                          measure={measure}
                          item={entry.item}
                          speaker={speakerOf(entry.item)}
                          filedOn={entry.item.caseId !== null ? (caseById.get(entry.item.caseId) ?? null) : null}
                          number={showNumbers ? entry.item.peerPhone : null}
                          contactName={showNumbers ? (entry.item.metadata.contact_name ?? null) : null}
                          onRetry={onRetry}
                          onUseTemplate={() => setChosenMode('template')}
                          retrying={retry.isPending && retry.variables?.id === entry.item.id}
                          quoted={quotedOf(entry.item)}
                          onShowMessage={showMessage}
                        />
                      ),
                    }
                  : {
                      key: `joined-${entry.digits}`,
                      render: (measure) =>
                        'clientId' in threadRef ? (
                          <NumberJoined measure={measure} clientId={threadRef.clientId} clientName={name ?? ''} joined={entry} />
                        ) : (
                          <li {...measure} />
                        ),
                    },
              )}
            />
          )
        }
      </QueryStatus>
      <p className="visually-hidden" aria-live="polite">
        {announced?.text}
      </p>
      {/* Until the conversation has loaded, nothing is known of its window: no warning, no composer. */}
      {conversation.data && (
        <div className="thread-compose" ref={measureCompose}>
          <ReplyWindow
            lastInboundAt={lastInboundAt}
            action={
              mode === 'text'
                ? { label: windowOpen ? 'Approved template…' : 'Send an approved template', onClick: () => setChosenMode('template') }
                : null
            }
          />
          <Composer
            threadRef={threadRef}
            clientName={name}
            onSend={onSend}
            onSendTemplate={onSendTemplate}
            onSendFile={onSendFile}
            file={file}
            onFileChange={setFile}
            windowOpen={windowOpen}
            mode={mode}
            onModeChange={setChosenMode}
            proposedCaseId={proposedCaseId}
            recipient={
              to
                ? {
                    value: to,
                    options: replyNumbers,
                    onChange: setChosenNumber,
                    // Not the client's own main number (a linked number, a second phone): say so.
                    note: 'clientId' in threadRef && primary && to !== primary ? `not ${name ?? 'the client'}'s main number` : null,
                  }
                : null
            }
          />
        </div>
      )}
    </section>
  );
}

/**
 * The optimistic copy of a message is replaced when its send call answers; the live update can bring
 * the stored record first. Until then both would show: the copy is hidden once a stored record from
 * the same person with the same text and file is there (each stored record stands for one copy).
 */
function withoutArrivedTemps(items: TThreadItem[]): TThreadItem[] {
  const temps = items.filter((i) => i.id < 0);
  if (!temps.length) return items;
  const claimed = new Set<number>();
  const arrived = new Set<number>();
  for (const temp of temps) {
    const stored = items.find(
      (i) =>
        i.id > 0 &&
        !claimed.has(i.id) &&
        i.direction === 'outbound' &&
        i.body === temp.body &&
        i.sentBy?.id === temp.sentBy?.id &&
        (i.attachments[0]?.fileName ?? null) === (temp.attachments[0]?.fileName ?? null) &&
        // Stored after the click (a little clock difference allowed), not an earlier same text.
        i.createdAt.getTime() - temp.createdAt.getTime() > -10_000 &&
        i.createdAt.getTime() - temp.createdAt.getTime() < 2 * 60_000,
    );
    if (!stored) continue;
    claimed.add(stored.id);
    arrived.add(temp.id);
  }
  return arrived.size ? items.filter((i) => !arrived.has(i.id)) : items;
}

type TJoined = { digits: string; linked: boolean; addedAt: Date; addedBy: { id: number; name: string } | null };

/** Thread items with a divider at the moment each linked number joined the conversation. */
function withDividers(items: TThreadItem[], joined: TJoined[]): ({ item: TThreadItem } | TJoined)[] {
  const out: ({ item: TThreadItem } | TJoined)[] = [];
  const pending = [...joined].sort((a, b) => a.addedAt.getTime() - b.addedAt.getTime());
  for (const item of items) {
    while (pending.length && pending[0]!.addedAt.getTime() <= item.createdAt.getTime()) out.push(pending.shift()!);
    out.push({ item });
  }
  return [...out, ...pending];
}

/** "+44 7700 900999 added to Benedict Okafor by Sam Staff", with the undo a wrong link needs. */
function NumberJoined({
  measure,
  clientId,
  clientName,
  joined,
}: {
  measure: TMeasure;
  clientId: number;
  clientName: string;
  joined: TJoined;
}) {
  const format = usePhoneFormatter();
  const utils = trpc.useUtils();
  const toast = useToast();
  const [, navigate] = useLocation();
  const unlink = trpc.inbox.unlink.useMutation({
    onSuccess: ({ unlinked }) => {
      toast(
        'success',
        `${format(joined.digits)} unlinked from ${clientName}: its ${unlinked} message${unlinked === 1 ? '' : 's'} (replies included) moved back to an unlinked conversation.`,
      );
      void utils.inbox.invalidate();
      void utils.clients.invalidate();
      void utils.timeline.invalidate();
      navigate(`/inbox/phone/${joined.digits}`);
    },
    onError: (error) => toast('error', error.message),
  });
  return (
    <li {...measure} className="thread-event" data-number={joined.digits}>
      <span>
        {format(joined.digits)} added to {clientName}
        {joined.addedBy ? ` by ${joined.addedBy.name}` : ''} ·{' '}
        <time dateTime={joined.addedAt.toISOString()}>{formatDateTime(joined.addedAt)}</time>
      </span>
      {joined.linked && (
        <ConfirmButton
          label="Unlink this number"
          question={`Move this number's messages back out of ${clientName}'s file?`}
          confirmLabel="Unlink"
          pending={unlink.isPending}
          onConfirm={() => unlink.mutate({ clientId, phone: joined.digits })}
        />
      )}
    </li>
  );
}
