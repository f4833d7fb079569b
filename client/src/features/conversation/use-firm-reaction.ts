import { normalizePhoneDigits } from '../../../../shared/phone';
import type { TReaction } from '../../../../shared/communication';
import { placeInThread, threadInputOf, type TUtils } from '../../lib/cache-patches';
import { threadRefOf, trpc, type TThreadItem, type TThreadRef } from '../../lib/trpc';
import { useToast } from '../../ui/toasts';
import { isFirmReaction } from './reaction-chips';

/** The reactions with the firm's replaced by `firm` (none: taken away). */
function withFirmReaction(reactions: TReaction[] | undefined, firmDigits: string | null, firm: TReaction[]): TReaction[] {
  return [...(reactions ?? []).filter((r) => !isFirmReaction(r, firmDigits)), ...firm];
}

/** The record as the thread's cache holds it now (a live change may have come since the click). */
function cachedItem(utils: TUtils, ref: TThreadRef, id: number): TThreadItem | undefined {
  for (const seeking of [false, true]) {
    const data = utils.inbox.thread.getInfiniteData(threadInputOf(ref, seeking));
    const found = data?.pages.flatMap((page) => page.items).find((item) => item.id === id);
    if (found) return found;
  }
  return undefined;
}

/**
 * The firm's reaction to a client's message (server/messaging/README.md "Reactions"): shown at once, sent with
 * `chat.react`; refused (too old, the provider said no), it goes back to what it was and the server's
 * sentence is shown. An empty emoji takes the firm's reaction away.
 */
export function useFirmReaction(item: TThreadItem) {
  const utils = trpc.useUtils();
  const toast = useToast();
  const me = trpc.auth.me.useQuery(undefined, { staleTime: Infinity });
  const settings = trpc.settings.chat.useQuery(undefined, { staleTime: Infinity });
  const firmDigits = settings.data ? normalizePhoneDigits(settings.data.firmPhone) : null;
  const react = trpc.chat.react.useMutation();
  const current = item.metadata.reactions?.find((r) => isFirmReaction(r, firmDigits)) ?? null;

  const choose = (emoji: string) => {
    const ref = threadRefOf(item);
    const before = (item.metadata.reactions ?? []).filter((r) => isFirmReaction(r, firmDigits));
    const mine: TReaction[] = emoji ? [{ from: firmDigits ?? '', emoji, at: new Date().toISOString(), by: me.data?.id }] : [];
    const placeReactions = (reactions: (latest: TThreadItem) => TReaction[]) => {
      const latest = cachedItem(utils, ref, item.id) ?? item;
      placeInThread(utils, ref, { ...latest, metadata: { ...latest.metadata, reactions: reactions(latest) } });
    };
    const place = (firm: TReaction[]) => placeReactions((latest) => withFirmReaction(latest.metadata.reactions, firmDigits, firm));
    place(mine);
    react.mutate(
      { communicationId: item.id, emoji },
      {
        // The stored reactions, as the server wrote them (its time, and any the client made meanwhile).
        onSuccess: (stored) => placeReactions(() => stored.metadata.reactions ?? []),
        onError: (error) => {
          place(before);
          toast('error', error.message);
        },
      },
    );
  };

  return { current, choose, pending: react.isPending, firmDigits };
}
