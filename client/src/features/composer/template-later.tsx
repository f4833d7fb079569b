import { formatWallTime } from '../../../../shared/zoned-time';
import { SendLaterMenu, SendLaterPicker, type TFirmZone, type TReplyOption, withZone } from '../scheduling';

/**
 * Under the template form: "Schedule for later" (a preset or a picked time), then the time chosen
 * with "Send it now instead". Send template then schedules it instead of sending it now.
 */
export function TemplateLater({
  zone,
  zoneError,
  at,
  onAt,
  picking,
  onPicking,
  replyOption,
}: {
  zone: TFirmZone | null;
  zoneError: string | null;
  /** The time chosen, or null: Send template sends now. */
  at: Date | null;
  onAt: (at: Date | null) => void;
  picking: boolean;
  onPicking: (picking: boolean) => void;
  replyOption: TReplyOption;
}) {
  return (
    <div className="template-later">
      {at && zone ? (
        <p className="template-later-note" role="status">
          <strong>Send template</strong> schedules it for {withZone(formatWallTime(at, zone.timeZone), zone)}
          {replyOption.on ? ', unless they reply first' : ''}.{' '}
          <button type="button" className="link-button" onClick={() => onAt(null)}>
            Send it now instead
          </button>
        </p>
      ) : (
        <span className="template-later-choose">
          <SendLaterMenu
            zone={zone}
            error={zoneError}
            label="Schedule for later"
            onPreset={onAt}
            onPickOwn={() => onPicking(true)}
            replyOption={replyOption}
          />
        </span>
      )}
      {picking && zone && (
        <SendLaterPicker
          zone={zone}
          title="Send the template"
          action="Choose this time"
          replyOption={replyOption}
          onPick={(picked) => {
            onAt(picked);
            onPicking(false);
            return Promise.resolve(null);
          }}
          onCancel={() => onPicking(false)}
        />
      )}
    </div>
  );
}
