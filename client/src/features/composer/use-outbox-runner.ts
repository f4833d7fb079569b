import { useEffect, useEffectEvent } from 'react';
import { useToast } from '../../ui/toasts';
import { placeInThread, type TUtils } from '../../lib/cache-patches';
import { trpc, type TThreadItem } from '../../lib/trpc';
import { draftKeyOf } from './drafts';
import { startOutbox } from './outbox';
import { errorCodeOf, type TQueuedSend } from './queued-sends';
import { writeDraft } from './use-draft';

/** A conversation's notice that a send failed: a Retry there that works takes it away. */
export const sendFailureToastKey = (threadKey: string) => `send-failed:${threadKey}`;

/** The send, with its echo id: a repeat of one whose answer was lost gets the first record back. */
async function callServer(utils: TUtils, entry: TQueuedSend): Promise<TThreadItem> {
  const stored =
    entry.call.procedure === 'send'
      ? await utils.client.chat.send.mutate({ ...entry.call.input, echoId: entry.echoId })
      : await utils.client.chat.sendTemplate.mutate({ ...entry.call.input, echoId: entry.echoId });
  return { ...stored, readAt: null, receipts: [] };
}

/** What was typed comes back to its conversation's message box (beside anything typed since). */
function restoreText(entry: TQueuedSend): void {
  const text = entry.shown.body;
  writeDraft(draftKeyOf(entry.userId, entry.threadKey), (current) =>
    !current.trim() ? text : current.includes(text) ? current : `${text}\n\n${current}`,
  );
}

/**
 * Sends the signed-in person's queued messages (outbox.ts) for as long as the app is open. A send
 * refused because the session ended goes to `onUnauthorized`: ending a session is auth's (which
 * forgets this outbox too), handed in by the app so that the composer does not import auth back.
 */
export function useOutboxRunner(user: { id: number }, onUnauthorized: (error: unknown) => void): void {
  const utils = trpc.useUtils();
  const toast = useToast();
  const start = useEffectEvent(() =>
    startOutbox({
      userId: user.id,
      call: (entry) => callServer(utils, entry),
      // The record carries the send's echo id: the queued copy stops showing once it is in the thread.
      onSent: (entry, record) => placeInThread(utils, entry.threadRef, record),
      onRefused: (entry, error) => {
        const code = errorCodeOf(error);
        if (code === 'UNAUTHORIZED') return onUnauthorized(error);
        toast('error', (error as Error).message, sendFailureToastKey(entry.threadKey));
        // The server kept the record, failed, with its reason and a Retry: the thread shows it.
        if (code === 'BAD_GATEWAY') return void utils.inbox.thread.invalidate(entry.threadRef);
        // Nothing was stored: nothing typed is lost.
        if (entry.call.procedure === 'send') restoreText(entry);
      },
    }),
  );
  useEffect(() => start(), [user.id]);
}
