import { addOptimisticCopy, dropOptimisticCopy, replaceOptimisticCopy } from '../../lib/cache-patches';
import { newEchoId } from '../../lib/echo-id';
import { threadKeyOfRef, trpc, type TThreadItem, type TThreadRef } from '../../lib/trpc';
import { useToast } from '../../ui/toasts';
import {
  enqueueSend,
  errorCodeOf,
  sendFailureToastKey,
  type TQueuedCall,
  type TQueuedSend,
  type TSendActions,
  uploadFile,
} from '../composer';
import type { TUploadedFile } from '../../../../shared/media-limits';

/** Ids of this page's optimistic copies and file previews: negative, never a stored record's. */
let optimisticId = -1;

/**
 * Sending from a conversation to `to` (always the number shown in the composer: nothing is sent to
 * a number a person did not see). Whatever is sent shows at once; `onShown` runs then (the list
 * scrolls to it, wherever the reader was).
 */
export function useOptimisticSend({
  threadRef,
  to,
  fromNumberId,
  onShown,
}: {
  threadRef: TThreadRef;
  to: string | null;
  /** The firm's number it goes from (the composer's choice; null: the server's default). */
  fromNumberId: number | null;
  onShown: () => void;
}): TSendActions {
  const utils = trpc.useUtils();
  const toast = useToast();
  const me = trpc.auth.me.useQuery(undefined, { staleTime: Infinity });
  const send = trpc.chat.send.useMutation();
  const clientId = 'clientId' in threadRef ? threadRef.clientId : null;

  const from = fromNumberId !== null ? { fromNumberId } : {};
  const recipientOf = (caseId: number | undefined) =>
    'clientId' in threadRef ? { clientId: threadRef.clientId, to: to ?? undefined, caseId, ...from } : { to: threadRef.phone, ...from };

  /**
   * A file's message: shown at once, sent once its upload is done, then the stored record with the
   * same echo id takes its place (or its failure). A file is not queued: it lives in the page's memory only.
   */
  const sendOptimistically = async (
    body: string,
    caseId: number | undefined,
    call: (echoId: string) => Promise<Omit<TThreadItem, 'readAt' | 'receipts'>>,
    attachments: TThreadItem['attachments'],
  ): Promise<boolean> => {
    const echoId = newEchoId();
    const copy: TThreadItem = {
      id: optimisticId--,
      type: 'chat',
      direction: 'outbound',
      subject: null,
      body,
      status: 'pending',
      error: null,
      attachments,
      sentBy: me.data ? { id: me.data.id, name: me.data.name } : null,
      clientId,
      caseId: caseId ?? null,
      peerPhone: to,
      firmNumberId: fromNumberId ?? 1,
      metadata: { echo_id: echoId },
      providerTimestamp: null,
      readAt: null,
      createdAt: new Date(),
      receipts: [],
      version: 0, // not stored yet: no record's version
    };
    addOptimisticCopy(utils, threadRef, copy);
    requestAnimationFrame(onShown);
    try {
      const sent = await call(echoId);
      // The live update may have brought the stored record already: it is replaced then.
      replaceOptimisticCopy(utils, threadRef, echoId, { ...sent, readAt: null, receipts: [] });
      return true;
    } catch (error) {
      toast('error', (error as Error).message, sendFailureToastKey(threadKeyOfRef(threadRef)));
      dropOptimisticCopy(utils, threadRef, echoId);
      if (errorCodeOf(error) === 'BAD_GATEWAY') {
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
      threadKey: threadKeyOfRef(threadRef),
      threadRef,
      tempId: -(queuedAt * 1000 + Math.floor(Math.random() * 1000)),
      queuedAt,
      call,
      shown: { ...shown, clientId, peerPhone: to, firmNumberId: fromNumberId ?? 1, sentBy: { id: me.data.id, name: me.data.name } },
      attempts: 0,
    });
    requestAnimationFrame(onShown);
    return true;
  };

  return {
    onSend: (body, caseId) =>
      sendQueued({ procedure: 'send', input: { ...recipientOf(caseId), body } }, { body, caseId: caseId ?? null, template: null }),
    onSendTemplate: (choice, caseId) =>
      sendQueued(
        { procedure: 'sendTemplate', input: { ...recipientOf(caseId), ...choice } },
        { body: `Template: ${choice.name}`, caseId: caseId ?? null, template: choice },
      ),
    /** Uploads first (the composer shows progress), then sends by the upload's id like any message. */
    onSendFile: async (file, caption, caseId, onProgress) => {
      let uploaded: TUploadedFile;
      try {
        uploaded = await uploadFile(file, onProgress);
      } catch (error) {
        return { ok: false, error: (error as Error).message };
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
        (echoId) => send.mutateAsync({ ...recipientOf(caseId), body: caption, attachmentId: uploaded.attachmentId, echoId }),
        [preview],
      );
      return ok ? { ok: true } : { ok: false, error: null };
    },
  };
}
