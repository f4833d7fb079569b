import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useKeepInView } from '../../lib/use-keep-in-view';
import { latestSnooze, snoozePresets, toLocalInputValue } from './snooze-presets';

/**
 * A date and time of one's own, between now and a year on. It stays open until the server has
 * answered: a refusal (a time that passed meanwhile, say) is shown in it, in the server's words,
 * to be corrected there; it closes once the conversation is snoozed.
 */
export function SnoozePicker({ onPick, onCancel }: { onPick: (until: Date) => Promise<string | null>; onCancel: () => void }) {
  const [value, setValue] = useState(() => toLocalInputValue(snoozePresets()[1]!.until));
  const [saving, setSaving] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);
  const [now] = useState(() => new Date());
  const form = useRef<HTMLFormElement>(null);
  const input = useRef<HTMLInputElement>(null);
  const inputId = useId();
  const refusalId = useId();
  useKeepInView(form, true);
  useEffect(() => input.current?.focus(), []);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const until = new Date(value);
    // Apply stays enabled while saving (a disabled button drops the focus): a second press waits.
    if (saving || Number.isNaN(until.getTime())) return;
    setSaving(true);
    setRefusal(null);
    void onPick(until).then((refused) => {
      // Snoozed: the menu closes the picker; refused: it stays, saying why.
      if (refused === null) return;
      setSaving(false);
      setRefusal(refused);
    });
  };
  return (
    <form
      ref={form}
      className="snooze-picker"
      aria-label="Snooze until a date"
      aria-busy={saving || undefined}
      onSubmit={submit}
      onKeyDown={(event) => {
        if (event.key === 'Escape') {
          event.preventDefault();
          onCancel();
        }
      }}
    >
      <label htmlFor={inputId}>Snooze until</label>
      <input
        ref={input}
        id={inputId}
        type="datetime-local"
        value={value}
        min={toLocalInputValue(now)}
        max={toLocalInputValue(latestSnooze(now))}
        onChange={(e) => setValue(e.target.value)}
        aria-invalid={refusal ? true : undefined}
        aria-describedby={refusal ? refusalId : undefined}
        required
      />
      {refusal && (
        <p id={refusalId} className="form-error" role="alert">
          {refusal}
        </p>
      )}
      <span className="button-row">
        <button type="submit" className="button small primary">
          {saving ? 'Snoozing…' : 'Apply'}
        </button>
        <button type="button" className="button small ghost" onClick={onCancel}>
          Cancel
        </button>
      </span>
    </form>
  );
}
