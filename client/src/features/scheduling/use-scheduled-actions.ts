import { useState } from 'react';
import { trpc } from '../../lib/trpc';
import { formatWallTime } from '../../../../shared/zoned-time';
import { useToast } from '../../ui/toasts';
import { withZone, type TFirmZone } from './use-firm-time-zone';
import { windowWarning, type TReplyWindow } from './window-warning';

/** "Don't send if they reply first": whether the next send scheduled waits for no reply, and its switch. */
export type TReplyOption = { on: boolean; set: (on: boolean) => void };

/**
 * Scheduling a send and changing one: each says what it did in a notice (the page's live region),
 * and hands a refusal back in the server's own words, for the form that asked to show it (nothing
 * typed is lost). The lists are read again after each change.
 */
export function useScheduledActions() {
  const utils = trpc.useUtils();
  // "Don't send if they reply first", for the next send scheduled here (off again once it is).
  const [unlessReplied, setUnlessReplied] = useState(false);
  const toast = useToast();
  const schedule = trpc.chat.schedule.useMutation();
  const reschedule = trpc.chat.reschedule.useMutation();
  const edit = trpc.chat.editScheduled.useMutation();
  const cancel = trpc.chat.cancelScheduled.useMutation();
  const refreshLists = () => void utils.chat.scheduled.invalidate();
  const refusalOf = (error: unknown) => (error instanceof Error ? error.message : 'That did not work. Try again.');
  /** Runs `call`; null once done (with `done`'s notice), else the refusal. */
  const run = async (call: () => Promise<unknown>, done: string): Promise<string | null> => {
    try {
      await call();
    } catch (error) {
      refreshLists(); // it may have gone or been changed elsewhere meanwhile: the list says so
      return refusalOf(error);
    }
    refreshLists();
    toast('success', done);
    return null;
  };
  const when = (at: Date, zone: TFirmZone) => withZone(formatWallTime(at, zone.timeZone), zone);
  return {
    pending: schedule.isPending || reschedule.isPending || edit.isPending || cancel.isPending,
    replyOption: { on: unlessReplied, set: setUnlessReplied } satisfies TReplyOption,
    /**
     * `window`: when the number's 24-hour window closes, and whose it is. Free text due after it is
     * scheduled all the same (they may write again meanwhile), and the notice says it will not go
     * otherwise, so that nobody learns it only from the not-sent notice (server/messaging/README.md "Scheduled sends").
     */
    schedule: (input: Parameters<typeof schedule.mutateAsync>[0] & { sendAt: Date }, zone: TFirmZone, window?: TReplyWindow | null) => {
      const late = window && input.template === undefined ? windowWarning(input.sendAt, window, zone) : null;
      const warning = late ? ` ${late}` : '';
      const unless = unlessReplied ? ' It will not be sent if they reply first.' : '';
      return run(
        () => schedule.mutateAsync({ ...input, ...(unlessReplied ? { unlessReplied } : {}) }),
        `Scheduled for ${when(input.sendAt, zone)}.${unless}${warning}`,
      ).then((refused) => {
        if (refused === null) setUnlessReplied(false);
        return refused;
      });
    },
    reschedule: (id: number, sendAt: Date, zone: TFirmZone) =>
      run(() => reschedule.mutateAsync({ id, sendAt }), `Rescheduled for ${when(sendAt, zone)}.`),
    edit: (id: number, body: string) => run(() => edit.mutateAsync({ id, body }), 'Scheduled message changed.'),
    /** `notice`: what to say once done, when it is not a plain cancel (one not sent, dismissed). */
    cancel: (id: number, notice = 'Scheduled message cancelled: it will not be sent.') => run(() => cancel.mutateAsync({ id }), notice),
  };
}
