import { useRef, useState } from 'react';
import { formatAhead } from '../../lib/format';
import { MenuButton } from '../../ui/menu-button';
import { SnoozePicker } from './snooze-picker';
import { snoozePresets } from './snooze-presets';

/**
 * "Snooze ▾": later today, tomorrow 9:00, next week, or a date and time picked — each shown with
 * the moment it stands for. The conversation leaves the open inbox until then.
 * `onSnooze` (a preset) reports the answer itself; `onSnoozePicked` hands the server's refusal back,
 * for the picker to show.
 */
export function SnoozeMenu({
  onSnooze,
  onSnoozePicked,
}: {
  onSnooze: (until: Date) => void;
  onSnoozePicked: (until: Date) => Promise<string | null>;
}) {
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
          onPick={async (until) => {
            const refused = await onSnoozePicked(until);
            if (refused === null) stopPicking();
            return refused;
          }}
        />
      )}
    </span>
  );
}
