import { useMemo, useRef, useState } from 'react';
import { useSearch } from 'wouter';
import { usePhoneFormatter } from '../../lib/format';
import { olderOf } from '../../lib/older-pages';
import { threadKeyOfRef, trpc, type TThreadItem, type TThreadRef, type TThreadSummary } from '../../lib/trpc';
import { QueryStatus } from '../../ui/query-status';
import { useToast } from '../../ui/toasts';
import { AccessGone } from '../access/access-gone';
import { goneOf, retryUnlessNotFound, type TGone } from '../access/gone';
import { Composer } from '../composer/composer';
import { useQueuedSends } from '../composer/outbox';
import { queuedItemOf, queuedToShow } from '../composer/queued-sends';
import { useComposerHeight } from '../composer/use-composer-height';
import { ComposeModeToggle } from '../ownership/compose-mode-toggle';
import { NoteCard } from '../ownership/note-card';
import { NoteComposer } from '../ownership/note-composer';
import { OwnershipBar } from '../ownership/ownership-bar';
import { DropOverlay, useFileDrop } from './file-drop';
import { LinkNumberBanner } from './link-number-banner';
import { MessageBubble } from './message-bubble';
import { MessageList, type TMessageListApi, type TRow } from './message-list';
import { NumberJoined, withDividers } from './number-joined';
import { hideArrivedCopies } from './optimistic-copies';
import { OptOutBanner } from './opt-out-banner';
import { ReplyWindow, WINDOW_MS } from './reply-window';
import { ThreadHeader } from './thread-header';
import { useArrivalAnnouncement } from './use-arrival-announcement';
import { useMarkThreadRead } from './use-mark-thread-read';
import { useOptimisticSend } from './use-optimistic-send';
import { useQuotedOf } from './use-quoted-of';
import { useReplyTarget } from './use-reply-target';
import { itemsOf, useThreadPages } from './use-thread-pages';

type TProps = { threadRef: TThreadRef; summary: TThreadSummary | undefined };

/**
 * One conversation: who owns it and its state, its messages and internal notes (earlier pages
 * above), the reply window and the composer — a reply, or a note for colleagues.
 */
export function ThreadView({ threadRef, summary }: TProps) {
  const utils = trpc.useUtils();
  const toast = useToast();
  // Opened from a search hit (?message=id): that message, not the newest, is brought into view.
  const focusId = Number(new URLSearchParams(useSearch()).get('message')) || null;
  const thread = useThreadPages(threadRef, focusId !== null);
  const clientId = 'clientId' in threadRef ? threadRef.clientId : null;
  const client = trpc.clients.get.useQuery({ clientId: clientId ?? 0 }, { enabled: clientId !== null, retry: retryUnlessNotFound });
  // Each bubble says which case it is filed on: the client's cases (the composer's picker asks the same).
  const cases = trpc.cases.listForClient.useQuery({ clientId: clientId ?? 0 }, { enabled: clientId !== null });
  const caseById = useMemo(() => new Map((cases.data ?? []).map((c) => [c.id, c])), [cases.data]);
  const formatNumber = usePhoneFormatter();
  const me = trpc.auth.me.useQuery(undefined, { staleTime: Infinity });
  const queued = useQueuedSends(threadKeyOfRef(threadRef));
  const retry = trpc.chat.retry.useMutation({ onError: (error) => toast('error', error.message) });
  const listRef = useRef<TMessageListApi>(null);
  const measureCompose = useComposerHeight();
  // Who may see the conversation: the names a note's mentions are marked by.
  const people = trpc.inbox.people.useQuery(threadRef);
  const nameById = useMemo(() => new Map((people.data ?? []).map((p) => [p.id, p.name])), [people.data]);
  // A reply to the client, or an internal note; the note's text is kept while the reply is written.
  const [noteMode, setNoteMode] = useState(false);
  const [noteText, setNoteText] = useState('');

  const items = useMemo(() => itemsOf(thread.data), [thread.data]);
  // NOT_FOUND for the messages or the client: the conversation is closed to this person (README
  // "Ethical walls"), or never was one. What was loaded stays in the cache but is no longer shown,
  // marked read or announced.
  const gone = goneOfBoth(goneOf(thread), clientId !== null ? goneOf(client) : null);
  const shownData = gone ? undefined : thread.data;
  // What waits in the outbox comes after what the server has, until the server has it too.
  const shownItems = useMemo(() => [...hideArrivedCopies(items), ...queuedToShow(items, queued).map(queuedItemOf)], [items, queued]);
  // Read when the newest message has been in view, not while the reader is further up.
  const [atEnd, setAtEnd] = useState(true);
  useMarkThreadRead(threadRef, shownData ? items : undefined, atEnd);
  const clientNumbers = client.data?.numbers;
  const reply = useReplyTarget(threadRef, items, clientNumbers, summary);
  // Templates first outside the window; a person may switch either way.
  const [chosenMode, setChosenMode] = useState<'template' | 'text' | null>(null);
  const mode = chosenMode ?? (reply.windowOpen ? 'text' : 'template');
  // A file to send: picked or pasted in the composer, or dropped anywhere on the conversation.
  const [file, setFile] = useState<File | null>(null);
  const drop = useFileDrop((dropped) => {
    setFile(dropped);
    setChosenMode('text'); // files go with the free-text composer, not a template
    setNoteMode(false); // a note carries no file: the file goes to the client, as a reply
  });
  const sends = useOptimisticSend({ threadRef, to: reply.to, onShown: () => listRef.current?.toEnd() });
  const quotedOf = useQuotedOf(items);
  // The case the conversation's recent messages are on (the newest of the last 20 that has one):
  // what the composer offers for the next message.
  const proposedCaseId = useMemo(() => items.slice(-20).findLast((item) => item.caseId !== null)?.caseId ?? undefined, [items]);
  const showMessage = (id: number) => listRef.current?.show(id);

  /** `confirm`: a send whose outcome is unknown, resent after the person said it may go twice. */
  const onRetry = (id: number, confirm: boolean) => {
    retry.mutate(confirm ? { id, confirm } : { id }, { onSuccess: () => void utils.inbox.thread.invalidate(threadRef) });
  };

  // The conversation has loaded when its messages and (for a client) the client's numbers have: a
  // reply goes to one of them. A failure of either is shown with one Retry for both.
  const clientFailed = clientId !== null && client.isError;
  const conversation = {
    isPending: thread.isPending || (clientId !== null && client.isPending),
    isError: thread.isError || clientFailed,
    error: thread.error ?? (clientFailed ? client.error : null),
    data: thread.data && (clientId === null || client.data) ? thread.data : undefined,
    isFetching: thread.isFetching || client.isFetching,
    refetch: () => Promise.all([thread.isError ? thread.refetch() : null, clientFailed ? client.refetch() : null]),
  };
  // An empty profile name is no name: the number stands for the contact then.
  const name = client.data?.name || summary?.clientName || summary?.contactName || null;
  const phone = 'phone' in threadRef ? threadRef.phone : client.data?.phone;
  /** Who wrote it, as a screen reader announces each message. */
  const speakerOf = (item: TThreadItem) => {
    if (item.direction === 'inbound')
      return (
        (reply.showNumbers ? item.metadata.contact_name : null) ?? name ?? (item.peerPhone ? formatNumber(item.peerPhone) : 'The contact')
      );
    if (item.sentBy) return item.sentBy.id === me.data?.id ? 'You' : item.sentBy.name;
    return item.metadata.echo ? "The firm's phone" : 'The firm';
  };
  const announced = useArrivalAnnouncement(shownData ? items : undefined, speakerOf);
  // Numbers linked to this client after it was created, shown where they joined the conversation.
  const joined = (clientNumbers ?? []).filter((n) => !n.primary && n.addedBy);
  const noteRow = (item: TThreadItem): TRow => {
    const mentions = item.metadata.mentions ?? [];
    return {
      key: `m${item.id}`,
      render: (measure) => (
        <NoteCard
          measure={measure}
          item={item}
          author={item.sentBy ? (item.sentBy.id === me.data?.id ? 'You' : item.sentBy.name) : 'Someone at the firm'}
          mentionedNames={mentions.map((id) => nameById.get(id) ?? '')}
          mentionsMe={me.data != null && mentions.includes(me.data.id)}
        />
      ),
    };
  };
  const rowOf = (entry: ReturnType<typeof withDividers>[number]): TRow => {
    if (!('item' in entry))
      return {
        key: `joined-${entry.digits}`,
        render: (measure) =>
          clientId !== null ? (
            <NumberJoined measure={measure} clientId={clientId} clientName={name ?? ''} joined={entry} />
          ) : (
            <li {...measure} />
          ),
      };
    if (entry.item.type === 'chat_note') return noteRow(entry.item);
    return {
      key: `m${entry.item.id}`,
      render: (measure) => (
        <MessageBubble
          measure={measure}
          item={entry.item}
          speaker={speakerOf(entry.item)}
          filedOn={entry.item.caseId !== null ? (caseById.get(entry.item.caseId) ?? null) : null}
          number={reply.showNumbers ? entry.item.peerPhone : null}
          contactName={reply.showNumbers ? (entry.item.metadata.contact_name ?? null) : null}
          onRetry={onRetry}
          onUseTemplate={() => setChosenMode('template')}
          retrying={retry.isPending && retry.variables?.id === entry.item.id}
          quoted={quotedOf(entry.item)}
          onShowMessage={showMessage}
        />
      ),
    };
  };

  if (gone)
    return (
      <section className="thread" aria-label="Conversation">
        <AccessGone gone={gone} what="conversation" back={{ href: '/inbox', label: 'Back to the inbox' }} />
      </section>
    );

  return (
    <section
      className={`thread ${drop.dragging ? 'dragging' : ''}`}
      aria-label={`Conversation with ${name ?? phone ?? 'contact'}`}
      {...drop.handlers}
    >
      {drop.dragging && <DropOverlay />}
      <ThreadHeader
        name={name}
        phone={phone}
        numbers={reply.numbers}
        clientId={clientId}
        ownership={summary && <OwnershipBar threadRef={threadRef} summary={summary} />}
      />
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
              rows={withDividers(shownItems, joined).map(rowOf)}
            />
          )
        }
      </QueryStatus>
      <p className="visually-hidden" aria-live="polite">
        {announced}
      </p>
      {/* Until the conversation has loaded, nothing is known of its window: no warning, no composer. */}
      {conversation.data && (
        <div className={`thread-compose${noteMode ? ' note-mode' : ''}`} ref={measureCompose}>
          <ComposeModeToggle note={noteMode} onChange={setNoteMode} />
          {noteMode ? (
            <NoteComposer
              threadRef={threadRef}
              text={noteText}
              onTextChange={setNoteText}
              proposedCaseId={proposedCaseId}
              onAdded={() => listRef.current?.toEnd()}
            />
          ) : (
            <>
              <ReplyWindow
                lastInboundAt={reply.lastInboundAt}
                action={
                  mode === 'text'
                    ? {
                        label: reply.windowOpen ? 'Approved template…' : 'Send an approved template',
                        onClick: () => setChosenMode('template'),
                      }
                    : null
                }
              />
              <Composer
                threadRef={threadRef}
                clientName={name}
                {...sends}
                file={file}
                onFileChange={setFile}
                windowOpen={reply.windowOpen}
                windowClosesAt={reply.lastInboundAt ? new Date(reply.lastInboundAt.getTime() + WINDOW_MS) : null}
                mode={mode}
                onModeChange={setChosenMode}
                proposedCaseId={proposedCaseId}
                recipient={
                  reply.to
                    ? {
                        value: reply.to,
                        options: reply.numbers,
                        onChange: reply.choose,
                        // Not the client's own main number (a linked number, a second phone): say so.
                        note:
                          clientId !== null && reply.primary && reply.to !== reply.primary
                            ? `not ${name ?? 'the client'}'s main number`
                            : null,
                      }
                    : null
                }
              />
            </>
          )}
        </div>
      )}
    </section>
  );
}

/** Lost wins: a conversation that was on screen says its access ended, even if only one part says so. */
function goneOfBoth(thread: TGone | null, client: TGone | null): TGone | null {
  if (thread === 'lost' || client === 'lost') return 'lost';
  return thread ?? client;
}
