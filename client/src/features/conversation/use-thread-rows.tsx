import { useMemo } from 'react';
import { usePhoneFormatter } from '../../lib/format';
import { threadKeyOfRef, trpc, type TThreadItem, type TThreadRef } from '../../lib/trpc';
import { useDismissToast, useToast } from '../../ui/toasts';
import { sendFailureToastKey } from '../composer';
import { MessageBubble, type TFiledCase } from './message-bubble';
import type { TRow } from './message-list';
import { NoteCard } from './note-card';
import { NumberJoined, type withDividers } from './number-joined';
import { useQuotedOf } from './use-quoted-of';

type TEntry = ReturnType<typeof withDividers>[number];

/**
 * How each row of a conversation is drawn: a message's bubble (with Retry), an internal note's card
 * (its mentions by name), a number joining the client's file. `speakerOf` says who wrote a message,
 * as a screen reader announces it.
 */
export function useThreadRows({
  threadRef,
  clientId,
  name,
  showNumbers,
  firmNumberLabel,
  caseById,
  items,
  onUseTemplate,
  onShowMessage,
}: {
  threadRef: TThreadRef;
  clientId: number | null;
  /** The conversation's name (the client's, or the contact's profile name). */
  name: string | null;
  /** The conversation has several numbers: each message says which it is from. */
  showNumbers: boolean;
  /** The label of the firm's number a message went through; null: the firm has one number, nothing to say. */
  firmNumberLabel: ((id: number) => string | null) | null;
  caseById: Map<number, TFiledCase>;
  items: TThreadItem[];
  onUseTemplate: () => void;
  onShowMessage: (id: number) => void;
}) {
  const utils = trpc.useUtils();
  const toast = useToast();
  const me = trpc.auth.me.useQuery(undefined, { staleTime: Infinity });
  const formatNumber = usePhoneFormatter();
  const dismissToast = useDismissToast();
  const failureKey = sendFailureToastKey(threadKeyOfRef(threadRef));
  // On the mutation, not on `mutate`: a thread re-mounted by a live update still takes the notice away.
  const retry = trpc.chat.retry.useMutation({
    onError: (error) => toast('error', error.message, failureKey),
    // Sent this time: the failure's notice no longer says how things stand.
    onSuccess: () => {
      dismissToast(failureKey);
      void utils.inbox.thread.invalidate(threadRef);
    },
  });
  // Who may see the conversation: the names a note's mentions are marked by.
  const people = trpc.inbox.people.useQuery(threadRef);
  const nameById = useMemo(() => new Map((people.data ?? []).map((p) => [p.id, p.name])), [people.data]);
  const quotedOf = useQuotedOf(items);

  /** `confirm`: a send whose outcome is unknown, resent after the person said it may go twice. */
  const onRetry = (id: number, confirm: boolean) => {
    retry.mutate(confirm ? { id, confirm } : { id });
  };
  /** Who wrote it, as a screen reader announces each message. */
  const speakerOf = (item: TThreadItem) => {
    if (item.direction === 'inbound')
      return (showNumbers ? item.metadata.contact_name : null) ?? name ?? (item.peerPhone ? formatNumber(item.peerPhone) : 'The contact');
    if (item.sentBy) return item.sentBy.id === me.data?.id ? 'You' : item.sentBy.name;
    return item.metadata.echo ? "The firm's phone" : 'The firm';
  };
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
  const rowOf = (entry: TEntry): TRow => {
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
          number={showNumbers ? entry.item.peerPhone : null}
          contactName={showNumbers ? (entry.item.metadata.contact_name ?? null) : null}
          firmNumber={firmNumberLabel?.(entry.item.firmNumberId) ?? null}
          onRetry={onRetry}
          onUseTemplate={onUseTemplate}
          retrying={retry.isPending && retry.variables?.id === entry.item.id}
          quoted={quotedOf(entry.item)}
          onShowMessage={onShowMessage}
        />
      ),
    };
  };
  return { rowOf, speakerOf };
}
