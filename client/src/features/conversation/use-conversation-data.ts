import { useMemo } from 'react';
import { trpc, type TThreadRef } from '../../lib/trpc';
import { goneOf, retryUnlessNotFound, type TGone } from '../access';
import { itemsOf, useThreadPages } from './use-thread-pages';

/**
 * What a conversation shows, read from the server: its messages (pages), and for a client the
 * client (names, numbers) and their cases (each bubble says which case it is filed on; the
 * composer's picker asks the same). `focused`: opened at a search hit.
 */
export function useConversationData(threadRef: TThreadRef, focused: boolean) {
  const thread = useThreadPages(threadRef, focused);
  const clientId = 'clientId' in threadRef ? threadRef.clientId : null;
  const client = trpc.clients.get.useQuery({ clientId: clientId ?? 0 }, { enabled: clientId !== null, retry: retryUnlessNotFound });
  const cases = trpc.cases.listForClient.useQuery({ clientId: clientId ?? 0 }, { enabled: clientId !== null });
  const caseById = useMemo(() => new Map((cases.data ?? []).map((c) => [c.id, c])), [cases.data]);
  const items = useMemo(() => itemsOf(thread.data), [thread.data]);
  // The conversation has loaded when its messages and (for a client) the client's numbers have: a
  // reply goes to one of them. A failure of either is shown with one Retry for both.
  const clientFailed = clientId !== null && client.isError;
  const status = {
    isPending: thread.isPending || (clientId !== null && client.isPending),
    isError: thread.isError || clientFailed,
    error: thread.error ?? (clientFailed ? client.error : null),
    data: thread.data && (clientId === null || client.data) ? thread.data : undefined,
    isFetching: thread.isFetching || client.isFetching,
    refetch: () => Promise.all([thread.isError ? thread.refetch() : null, clientFailed ? client.refetch() : null]),
  };
  return {
    thread,
    clientId,
    client,
    caseById,
    /** Every loaded message and note, oldest first. */
    items,
    // NOT_FOUND for the messages or the client: the conversation is closed to this person (server/access/README.md
    // "Ethical walls"), or never was one.
    gone: goneOfBoth(goneOf(thread), clientId !== null ? goneOf(client) : null),
    /** The messages and the client together, for QueryStatus. */
    status,
  };
}

/** Lost wins: a conversation that was on screen says its access ended, even if only one part says so. */
function goneOfBoth(thread: TGone | null, client: TGone | null): TGone | null {
  if (thread === 'lost' || client === 'lost') return 'lost';
  return thread ?? client;
}
