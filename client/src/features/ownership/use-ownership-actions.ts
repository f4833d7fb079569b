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
  // A refusal is said where the change was asked for: in a notice, or in the date picker itself.
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
  });
  // A second press while the first is on its way is ignored (the controls are not disabled
  // meanwhile: a disabled control loses the keyboard's focus).
  const assignTo = (userId: number | null) => {
    if (ref && !assign.isPending) assign.mutate({ ...ref, userId });
  };
  return {
    me,
    assign: assignTo,
    /**
     * The `a` key: takes a conversation no one has. One's own stays one's own (said so: giving it
     * back is the Assignee menu's, never a stray key's), and another person's is left alone, with a
     * word on how to take it over: one stray key should not take a colleague's conversation.
     */
    assignToMe: (assignee: TPersonRef | null, title: string) => {
      if (!me) return;
      if (!assignee) assignTo(me.id);
      else if (assignee.id === me.id) toast('info', 'Already assigned to you.');
      else toast('info', `${title} is ${assignee.name}'s: use the Assignee menu to take it over.`);
    },
    setState: (state: TThreadState, snoozeUntil?: Date) => {
      if (ref && !setState.isPending)
        setState.mutate(state === 'snoozed' ? { ...ref, state, snoozeUntil } : { ...ref, state }, {
          onError: (error) => toast('error', error.message),
        });
    },
    /** Snoozes until a moment of one's own: the server's refusal, or null once it is snoozed. */
    snoozeUntil: async (until: Date): Promise<string | null> => {
      if (!ref) return null;
      if (setState.isPending) return 'The last change is still being saved: try again in a moment.';
      return setState.mutateAsync({ ...ref, state: 'snoozed', snoozeUntil: until }).then(
        () => null,
        (error: Error) => error.message,
      );
    },
  };
}
