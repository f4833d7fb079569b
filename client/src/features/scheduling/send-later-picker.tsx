import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { fromZonedInputValue, toZonedInputValue } from '../../../../shared/zoned-time';
import { escapeCancels } from '../../lib/escape-cancels';
import { latestSendAt, sendLaterPresets } from './send-later-presets';
import type { TFirmZone } from './use-firm-time-zone';
import { UnlessRepliedOption } from './unless-replied-option';
import type { TReplyOption } from './use-scheduled-actions';

type TProps = {
  zone: TFirmZone;
  /** What the form is for, as a screen reader names it ("Send later", "Reschedule"). */
  title: string;
  /** The submit button's words ("Schedule", "Reschedule"). */
  action: string;
  /** Where the input starts: the time already set, else tomorrow at 9:00. */
  initial?: Date;
  /** The server's refusal, or null once it is done (the form is then closed by its owner). */
  onPick: (at: Date) => Promise<string | null>;
  onCancel: () => void;
  /** For a new send: "Don't send if they reply first" beside the time. */
  replyOption?: TReplyOption;
  /** What to warn of for the time chosen (free text past the 24-hour window), said while it is chosen. */
  warningFor?: (at: Date) => string | null;
};

/** Why `at` cannot be chosen (not a time, passed, over a year away), or null. */
function checkSendAt(at: Date | null, now: Date): string | null {
  if (!at) return 'Choose a date and a time.';
  if (at.getTime() <= now.getTime()) return 'That time has passed: choose a later one.';
  if (at > latestSendAt(now)) return 'Choose a time within a year from now.';
  return null;
}

/**
 * A date and time of one's own on the firm's clock, between now and a year on, in place (no dialog
 * to lose). It stays open until the server has answered: a refusal (a time that passed meanwhile)
 * is shown in it, in the server's words, to be corrected there. Escape closes it.
 */
export function SendLaterPicker({ zone, title, action, initial, onPick, onCancel, replyOption, warningFor }: TProps) {
  const [now] = useState(() => new Date());
  const [value, setValue] = useState(() => toZonedInputValue(initial ?? sendLaterPresets(now, zone.timeZone)[1]!.at, zone.timeZone));
  const [saving, setSaving] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const inputId = useId();
  const refusalId = useId();
  const zoneId = useId();
  const refusalLine = useRef<HTMLParagraphElement>(null);
  const warningId = useId();
  const chosen = fromZonedInputValue(value, zone.timeZone);
  const warning = chosen && warningFor ? warningFor(chosen) : null;
  useEffect(() => input.current?.focus(), []);
  // In a composer that scrolls, the reason may land below its edge: it is brought into view.
  // Braces: a browser's scrollIntoView may return a promise, which React would call as a clean-up.
  useEffect(() => {
    refusalLine.current?.scrollIntoView({ block: 'nearest' });
  }, [refusal]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (saving) return; // a second press waits for the first answer (the button stays enabled: a disabled one drops the focus)
    const at = fromZonedInputValue(value, zone.timeZone);
    const refused = checkSendAt(at, new Date());
    if (refused || !at) {
      setRefusal(refused);
      return;
    }
    setSaving(true);
    setRefusal(null);
    void onPick(at).then((refused) => {
      setSaving(false);
      setRefusal(refused);
    });
  };
  return (
    // The checks are its own (in words, beside the input): the browser's would refuse a time with
    // seconds, or one a minute off the step.
    <form
      noValidate
      className="send-later-picker"
      aria-label={title}
      aria-busy={saving || undefined}
      onSubmit={submit}
      onKeyDown={escapeCancels(onCancel)}
    >
      <label htmlFor={inputId}>{title} at</label>
      <input
        ref={input}
        id={inputId}
        type="datetime-local"
        value={value}
        min={toZonedInputValue(now, zone.timeZone)}
        max={toZonedInputValue(latestSendAt(now), zone.timeZone)}
        onChange={(e) => setValue(e.target.value)}
        aria-invalid={refusal ? true : undefined}
        aria-describedby={
          [zone.label ? zoneId : null, warning ? warningId : null, refusal ? refusalId : null].filter(Boolean).join(' ') || undefined
        }
        required
      />
      {zone.label && (
        <span className="send-later-zone" id={zoneId}>
          {zone.label}
        </span>
      )}
      {replyOption && <UnlessRepliedOption option={replyOption} />}
      <span className="button-row">
        <button type="submit" className="button small primary">
          {saving ? 'Saving…' : action}
        </button>
        <button type="button" className="button small ghost" onClick={onCancel}>
          Cancel
        </button>
      </span>
      {/* Polite and always there: a time changed is announced without taking over the keyboard. */}
      <p id={warningId} className="send-later-warning" aria-live="polite">
        {warning}
      </p>
      {refusal && (
        <p ref={refusalLine} id={refusalId} className="form-error" role="alert">
          {refusal}
        </p>
      )}
    </form>
  );
}
