import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { formatAhead } from '../../lib/format';
import { MenuButton } from '../../ui/menu-button';
import { snoozePresets, toLocalInputValue } from './snooze-presets';

/**
 * "Snooze ▾": later today, tomorrow 9:00, next week, or a date and time picked — each shown with
 * the moment it stands for. The conversation leaves the open inbox until then.
 */
export function SnoozeMenu({ onSnooze }: { onSnooze: (until: Date) => void }) {
  const [picking, setPicking] = useState(false);
  const wrapper = useRef<HTMLSpanElement>(null);
  // The picker closed: the focus goes back to the Snooze button, not to the page's start.
  const stopPicking = () => {
    setPicking(false);
    wrapper.current?.querySelector<HTMLButtonElement>('button[aria-haspopup]')?.focus();
  };
  // The presets are worked out when the menu opens, not when the page was drawn.
  const [now, setNow] = useState(() => new Date());
  const presets = snoozePresets(now);
  return (
    <span className="snooze" ref={wrapper}>
      <MenuButton
        className="button small ghost"
        menuLabel="Snooze until"
        align="end"
        onOpenChange={(open) => {
          if (open) setNow(new Date());
        }}
        items={[
          ...presets.map((p) => ({ key: p.key, label: p.label, hint: formatAhead(p.until, now), onSelect: () => onSnooze(p.until) })),
          { key: 'pick', label: 'Pick a date…', onSelect: () => setPicking(true) },
        ]}
      >
        Snooze <span aria-hidden="true">▾</span>
      </MenuButton>
      {picking && (
        <SnoozePicker
          onCancel={stopPicking}
          onPick={(until) => {
            stopPicking();
            onSnooze(until);
          }}
        />
      )}
    </span>
  );
}

/** A date and time of one's own; the server refuses one in the past and says so. */
function SnoozePicker({ onPick, onCancel }: { onPick: (until: Date) => void; onCancel: () => void }) {
  const [value, setValue] = useState(() => toLocalInputValue(snoozePresets()[1]!.until));
  const input = useRef<HTMLInputElement>(null);
  const inputId = useId();
  useEffect(() => input.current?.focus(), []);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const until = new Date(value);
    if (!Number.isNaN(until.getTime())) onPick(until);
  };
  return (
    <form
      className="snooze-picker"
      aria-label="Snooze until a date"
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
        min={toLocalInputValue(new Date())}
        onChange={(e) => setValue(e.target.value)}
        required
      />
      <span className="button-row">
        <button type="submit" className="button small primary" disabled={!value}>
          Apply
        </button>
        <button type="button" className="button small ghost" onClick={onCancel}>
          Cancel
        </button>
      </span>
    </form>
  );
}
