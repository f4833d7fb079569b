import { trpc, type TOutputs } from '../../lib/trpc';

/** A client or a case: what a wall stands around. */
export type TSubject = { clientId: number } | { caseId: number };
export type TAccess = TOutputs['access']['get'];
export type TPerson = TOutputs['users']['list'][number];

/**
 * The wall's changes. Each answers the wall as it now is, which is put straight into the cache;
 * the lists that show the lock (clients, cases) and the People page's walls are read again. The
 * server also tells every open page to resync, this one included: that is the same refetch.
 */
export function useAccessChanges(subject: TSubject) {
  const utils = trpc.useUtils();
  const onSuccess = (access: TAccess) => {
    utils.access.get.setData(subject, access);
    void utils.clients.invalidate();
    void utils.cases.invalidate();
    void utils.access.forPerson.invalidate();
  };
  return {
    setRestricted: trpc.access.setRestricted.useMutation({ onSuccess }),
    addMember: trpc.access.addMember.useMutation({ onSuccess }),
    removeMember: trpc.access.removeMember.useMutation({ onSuccess }),
    screen: trpc.access.screen.useMutation({ onSuccess }),
    unscreen: trpc.access.unscreen.useMutation({ onSuccess }),
  };
}

export type TAccessChanges = ReturnType<typeof useAccessChanges>;

/**
 * A change's refusal while it still says something: once the wall has been read again (any change
 * since, by anyone), an older refusal is stale and no longer shown.
 */
export function freshError<TError>(mutation: { error: TError | null; submittedAt: number }, readAt: number): TError | null {
  return mutation.error && mutation.submittedAt >= readAt ? mutation.error : null;
}
