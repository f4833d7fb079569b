import { useMemo, useRef, useState } from 'react';
import { useSearch } from 'wouter';
import { olderOf } from '../../lib/older-pages';
import { threadKeyOfRef, trpc, type TThreadRef, type TThreadSummary } from '../../lib/trpc';
import { QueryStatus } from '../../ui/query-status';
import { AccessGone } from '../access';
import { queuedItemOf, queuedToShow, useComposerHeight, useQueuedSends } from '../composer';
import { OwnershipBar } from '../ownership';
import { DropOverlay, useFileDrop } from './file-drop';
import { LinkNumberBanner } from './link-number-banner';
import { MessageList, type TMessageListApi } from './message-list';
import { withDividers } from './number-joined';
import { hideArrivedCopies } from './optimistic-copies';
import { OptOutBanner } from './opt-out-banner';
import { ThreadCompose } from './thread-compose';
import { ThreadHeader } from './thread-header';
import { useArrivalAnnouncement } from './use-arrival-announcement';
import { useConversationData } from './use-conversation-data';
import { useMarkThreadRead } from './use-mark-thread-read';
import { useOptimisticSend } from './use-optimistic-send';
import { useReplyTarget } from './use-reply-target';
import { useThreadRows } from './use-thread-rows';

type TProps = { threadRef: TThreadRef; summary: TThreadSummary | undefined };

/**
 * One conversation: who owns it and its state, its messages and internal notes (earlier pages
 * above), the reply window and the composer — a reply, or a note for colleagues.
 */
export function ThreadView({ threadRef, summary }: TProps) {
  // Opened from a search hit (?message=id): that message, not the newest, is brought into view.
  const focusId = Number(new URLSearchParams(useSearch()).get('message')) || null;
  const { thread, clientId, client, caseById, items, gone, status } = useConversationData(threadRef, focusId !== null);
  const queued = useQueuedSends(threadKeyOfRef(threadRef));
  const listRef = useRef<TMessageListApi>(null);
  const measureCompose = useComposerHeight();
  // A reply to the client, or an internal note; the note's text is kept while the reply is written.
  const [noteMode, setNoteMode] = useState(false);
  const [noteText, setNoteText] = useState('');

  // Gone (server/access/README.md "Ethical walls"): what was loaded stays in the cache but is no longer shown,
  // marked read or announced.
  const shownData = gone ? undefined : thread.data;
  // What waits in the outbox comes after what the server has, until the server has it too.
  const shownItems = useMemo(() => [...hideArrivedCopies(items), ...queuedToShow(items, queued).map(queuedItemOf)], [items, queued]);
  // Read when the newest message has been in view, not while the reader is further up.
  const [atEnd, setAtEnd] = useState(true);
  useMarkThreadRead(threadRef, shownData ? items : undefined, atEnd);
  const clientNumbers = client.data?.numbers;
  const firmNumbers = trpc.numbers.list.useQuery(undefined, { staleTime: 60_000 });
  const reply = useReplyTarget(threadRef, items, clientNumbers, summary, firmNumbers.data);
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
  const sends = useOptimisticSend({ threadRef, to: reply.to, fromNumberId: reply.from, onShown: () => listRef.current?.toEnd() });
  // The case the conversation's recent messages are on (the newest of the last 20 that has one):
  // what the composer offers for the next message.
  const proposedCaseId = useMemo(() => items.slice(-20).findLast((item) => item.caseId !== null)?.caseId ?? undefined, [items]);

  // An empty profile name is no name: the number stands for the contact then.
  const name = client.data?.name || summary?.clientName || summary?.contactName || null;
  const phone = 'phone' in threadRef ? threadRef.phone : client.data?.phone;
  const rows = useThreadRows({
    threadRef,
    clientId,
    name,
    showNumbers: reply.showNumbers,
    // With several firm numbers, each message says which it went through (a deactivated one's too).
    firmNumberLabel: (firmNumbers.data?.length ?? 0) > 1 ? (id: number) => firmNumbers.data?.find((n) => n.id === id)?.label ?? null : null,
    caseById,
    items,
    onUseTemplate: () => setChosenMode('template'),
    onShowMessage: (id) => listRef.current?.show(id),
  });
  const announced = useArrivalAnnouncement(shownData ? items : undefined, rows.speakerOf);
  // Numbers linked to this client after it was created, shown where they joined the conversation.
  const joined = (clientNumbers ?? []).filter((n) => !n.primary && n.addedBy);

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
      <QueryStatus query={status} loading="Loading conversation…">
        {() =>
          shownItems.length === 0 ? (
            <p className="empty">No messages yet. Say hello below.</p>
          ) : (
            <MessageList
              ref={listRef}
              focusId={focusId}
              onAtEnd={setAtEnd}
              older={olderOf(thread)}
              rows={withDividers(shownItems, joined).map(rows.rowOf)}
            />
          )
        }
      </QueryStatus>
      <p className="visually-hidden" aria-live="polite">
        {announced}
      </p>
      {/* Until the conversation has loaded, nothing is known of its window: no warning, no composer. */}
      {/* An erased client is read-only (server/records/README.md "Records"): nothing is written to them. */}
      {status.data && !client.data?.erasedAt && (
        <ThreadCompose
          threadRef={threadRef}
          measureRef={measureCompose}
          note={{ on: noteMode, setOn: setNoteMode, text: noteText, setText: setNoteText }}
          reply={reply}
          mode={mode}
          onModeChange={setChosenMode}
          clientId={clientId}
          // A number on no client's file has a profile name, not a client's: the wording's names are left out there.
          clientName={clientId ? name : null}
          sends={sends}
          file={file}
          onFileChange={setFile}
          proposedCaseId={proposedCaseId}
          onAdded={() => listRef.current?.toEnd()}
        />
      )}
    </section>
  );
}
