import { formatAhead } from '../../lib/format';
import { trpc, type TThreadRef } from '../../lib/trpc';
import { useToast } from '../../ui/toasts';
import { refreshOwnership } from './refresh-ownership';
import type { TThreadState } from './snooze-presets';

/** A person as ownership names them. */
export type TPersonRef = { id: number; name: string };

/**
 * Assigning a conversation and changing its state, from the thread's header, an inbox row or a
 * shortcut alike: what changed is said in a short notice, a refusal in the server's own words.
 */
export function useOwnershipActions(ref: TThreadRef | null) {
  const utils = trpc.useUtils();
  const toast = useToast();
  const me = trpc.auth.me.useQuery(undefined, { staleTime: Infinity }).data;
  const assign = trpc.inbox.assign.useMutation({
    onSuccess: ({ assignee }) => {
      refreshOwnership(utils);
      toast('success', assignee ? `Assigned to ${assignee.id === me?.id ? 'you' : assignee.name}.` : 'Unassigned.');
    },
    onError: (error) => toast('error', error.message),
  });
  const setState = trpc.inbox.setState.useMutation({
    onSuccess: ({ state, snoozedUntil }) => {
      refreshOwnership(utils);
      toast(
        'success',
        state === 'done'
          ? 'Marked done.'
          : state === 'snoozed' && snoozedUntil
            ? `Snoozed until ${formatAhead(snoozedUntil)}.`
            : 'Reopened.',
      );
    },
    onError: (error) => toast('error', error.message),
  });
  return {
    me,
    // A second press while the first is on its way is ignored (the controls are not disabled
    // meanwhile: a disabled control loses the keyboard's focus).
    assign: (userId: number | null) => {
      if (ref && !assign.isPending) assign.mutate({ ...ref, userId });
    },
    setState: (state: TThreadState, snoozeUntil?: Date) => {
      if (ref && !setState.isPending) setState.mutate(state === 'snoozed' ? { ...ref, state, snoozeUntil } : { ...ref, state });
    },
  };
}
