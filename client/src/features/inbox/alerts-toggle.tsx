import { useToast } from '../../ui/toasts';
import { toggleAlerts, useAlertsEnabled } from '../../lib/desktop-alerts';

/** New-message alerts (desktop notification and sound): off by default, asked for when turned on. */
export function AlertsToggle() {
  const enabled = useAlertsEnabled();
  const toast = useToast();
  return (
    <button
      type="button"
      className="button ghost small alerts-toggle"
      aria-pressed={enabled}
      onClick={() => void toggleAlerts().then((said) => toast('success', said))}
    >
      {enabled ? 'Alerts on' : 'Alerts off'}
    </button>
  );
}
