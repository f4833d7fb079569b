import { useLocation } from 'wouter';
import { formatDateTime, usePhoneFormatter } from '../../lib/format';
import { trpc, type TThreadItem } from '../../lib/trpc';
import { ConfirmButton } from '../../ui/confirm-button';
import { useToast } from '../../ui/toasts';
import type { TMeasure } from './message-list';

export type TJoined = { digits: string; linked: boolean; addedAt: Date; addedBy: { id: number; name: string } | null };

/** Thread items with a divider at the moment each linked number joined the conversation. */
export function withDividers(items: TThreadItem[], joined: TJoined[]): ({ item: TThreadItem } | TJoined)[] {
  const out: ({ item: TThreadItem } | TJoined)[] = [];
  const pending = [...joined].sort((a, b) => a.addedAt.getTime() - b.addedAt.getTime());
  for (const item of items) {
    while (pending.length && pending[0]!.addedAt.getTime() <= item.createdAt.getTime()) out.push(pending.shift()!);
    out.push({ item });
  }
  return [...out, ...pending];
}

/** "+44 7700 900999 added to Benedict Okafor by Sam Staff", with the undo a wrong link needs. */
export function NumberJoined({
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
