import { useState } from 'react';
import { formatWallTime } from '../../../../shared/zoned-time';
import { MenuButton } from '../../ui/menu-button';
import { ClockIcon } from '../../ui/clock-icon';
import { sendLaterPresets } from './send-later-presets';
import { withZone, type TFirmZone } from './use-firm-time-zone';
import { REPLY_OPTION_LABEL } from './unless-replied-option';
import type { TReplyOption } from './use-scheduled-actions';

type TProps = {
  zone: TFirmZone | null;
  /** Why the presets cannot be worked out (the firm's time zone did not load). */
  error: string | null;
  disabled?: boolean;
  /** Words on the button ("Schedule for later"); without them it is the clock alone, named so for screen readers. */
  label?: string;
  /** A preset was chosen. */
  onPreset: (at: Date) => void;
  /** "Pick a date and time…" was chosen: the owner opens the picker where it fits. */
  onPickOwn: () => void;
  /** "Don't send if they reply first", switched on and off in the menu (it stays open). */
  replyOption?: TReplyOption;
};

/**
 * "Send later": the clock beside Send (named "Schedule for later"), a menu of an hour on, tomorrow at
 * 9:00 and Monday at 9:00, each with the moment it stands for on the firm's clock (and the zone's
 * name when the browser's is another), or a date and time picked; and, below them, whether it is
 * sent only if the client has not replied meanwhile. Keyboard as every menu here (arrows, Enter, Escape).
 */
export function SendLaterMenu({ zone, error, disabled, label, onPreset, onPickOwn, replyOption }: TProps) {
  // Worked out when the menu opens, not when the page was drawn.
  const [now, setNow] = useState(() => new Date());
  const items = zone
    ? [
        ...sendLaterPresets(now, zone.timeZone).map((preset) => ({
          key: preset.key,
          label: preset.label,
          hint: withZone(formatWallTime(preset.at, zone.timeZone, now), zone),
          onSelect: () => onPreset(preset.at),
        })),
        { key: 'pick', label: 'Pick a date and time…', onSelect: onPickOwn },
        ...(replyOption
          ? [
              {
                key: 'unless-replied',
                label: REPLY_OPTION_LABEL,
                checked: replyOption.on,
                toggles: true,
                onSelect: () => replyOption.set(!replyOption.on),
              },
            ]
          : []),
      ]
    : null;
  return (
    <MenuButton
      className={label ? 'button small ghost send-later-button' : 'button send-later-button'}
      // Not "Send later": a button named with "Send" would be one more answer to "the Send button".
      ariaLabel={label ? undefined : 'Schedule for later'}
      menuLabel="Send later"
      // Beside Send (at the composer's right edge) it opens leftwards; on its own line, rightwards.
      align={label ? 'start' : 'end'}
      items={items}
      loading="Reading the firm's time zone…"
      error={error}
      disabled={disabled}
      onOpenChange={(open) => {
        if (open) setNow(new Date());
      }}
    >
      <ClockIcon />
      {label}
      <span aria-hidden="true">▾</span>
    </MenuButton>
  );
}
