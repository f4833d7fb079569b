import type { TReplyOption } from './use-scheduled-actions';

/** The option's words, in the Send later menu and in the picker alike. */
export const REPLY_OPTION_LABEL = 'Don’t send if they reply first';

/**
 * "Don't send if they reply first" as a checkbox, in the form where a time is picked: a follow-up
 * that is not sent if the client writes after it was scheduled (server/messaging/README.md "Scheduled sends"). Off
 * unless turned on; the same switch as the Send later menu's.
 */
export function UnlessRepliedOption({ option }: { option: TReplyOption }) {
  return (
    <label className="unless-replied-option">
      <input type="checkbox" checked={option.on} onChange={(event) => option.set(event.target.checked)} />
      {REPLY_OPTION_LABEL}
    </label>
  );
}
