import { useMinuteClock } from '../../lib/use-minute-clock';
import { threadRefOf, trpc, type TThreadItem } from '../../lib/trpc';
import { ReactionChips, type TReactorNames } from './reaction-chips';
import { ReactionPicker } from './reaction-picker';
import { useFirmReaction } from './use-firm-reaction';

/** The provider takes a reaction to a message up to 30 days old (the server refuses older ones too). */
const REACT_WITHIN_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Whether the firm may react to this record: a client's chat message that is stored, has the
 * provider's id, is not erased, and is at most 30 days old. Never the firm's
 * own messages or notes, nor one the client deleted.
 */
export function canReactTo(item: TThreadItem, now: number): boolean {
  if (item.type !== 'chat' || item.direction !== 'inbound' || item.id <= 0) return false;
  if (!item.metadata.chat_msg_id || item.metadata.erased_at || item.metadata.revoked_at) return false;
  const when = (item.providerTimestamp ?? item.createdAt).getTime();
  return now - when <= REACT_WITHIN_MS;
}

/** Names for the firm's reactions: "You", or the colleague who chose it (asked only when someone else did). */
function useReactorNames(item: TThreadItem): TReactorNames {
  const me = trpc.auth.me.useQuery(undefined, { staleTime: Infinity });
  const meId = me.data?.id ?? null;
  const byOthers = (item.metadata.reactions ?? []).some((r) => r.by !== undefined && r.by !== meId);
  const people = trpc.inbox.people.useQuery(threadRefOf(item), { enabled: byOthers, staleTime: 5 * 60_000 });
  return { meId, nameOf: (userId) => people.data?.find((p) => p.id === userId)?.name };
}

/**
 * Under a message: its reactions (the client's and the firm's), and on a client's message a React
 * button to add, change or remove the firm's.
 */
export function BubbleReactions({ item, speaker, showWho }: { item: TThreadItem; speaker: string; showWho: boolean }) {
  const now = useMinuteClock();
  const firm = useFirmReaction(item);
  const names = useReactorNames(item);
  const reactions = item.metadata.reactions ?? [];
  return (
    <>
      {reactions.length > 0 && <ReactionChips reactions={reactions} showWho={showWho} firmDigits={firm.firmDigits} names={names} />}
      {canReactTo(item, now) && (
        <ReactionPicker current={firm.current?.emoji ?? null} onChoose={firm.choose} pending={firm.pending} speaker={speaker} />
      )}
    </>
  );
}
