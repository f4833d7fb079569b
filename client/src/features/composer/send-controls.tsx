import { SendLaterMenu, SendLaterPicker } from '../scheduling';
import type { TSendLater } from './use-send-later';

/** Send, and beside it in a client's conversation (`later`) the clock of "Send later". */
export function SendButtons({ label, disabled, later }: { label: string; disabled: boolean; later: TSendLater | null }) {
  return (
    <span className="send-buttons">
      <button type="submit" className="button primary" disabled={disabled}>
        {label}
      </button>
      {later && (
        <SendLaterMenu
          zone={later.zone}
          error={later.zoneError}
          disabled={disabled || later.pending}
          onPreset={later.scheduleFromMenu}
          onPickOwn={() => later.setPicking(true)}
          replyOption={later.replyOption}
        />
      )}
    </span>
  );
}

/**
 * "Pick a date and time…" for what is in the message box, while open; `onClose` runs once it is
 * scheduled or cancelled (the message box takes the focus back). Its own form, after the composer's
 * (a form may not hold another).
 */
export function SendLaterPanel({ later, withFile, onClose }: { later: TSendLater; withFile: boolean; onClose: () => void }) {
  if (!later.picking || !later.zone) return null;
  return (
    <div className="composer-later">
      <SendLaterPicker
        zone={later.zone}
        title={withFile ? 'Send the file later' : 'Send later'}
        action="Schedule"
        replyOption={later.replyOption}
        warningFor={later.warningFor}
        onPick={async (at) => {
          const refused = await later.scheduleAt(at);
          if (refused === null) {
            later.setPicking(false);
            onClose();
          }
          return refused;
        }}
        onCancel={() => {
          later.setPicking(false);
          onClose();
        }}
      />
    </div>
  );
}
