import { alertsOn, playTone } from '../../lib/desktop-alerts';
import type { TThreadItem } from '../../lib/trpc';

// Desktop notifications and a sound for new inbound messages, when the person's Alerts switch
// (lib/desktop-alerts.ts) is on.
const alerted = new Set<number>();

/**
 * A notification and a short tone for inbound messages that have just arrived, once per message,
 * while the app is not what the person is looking at. The notification names the sender, never
 * the text (it may show on a locked screen).
 */
export function alertNewMessages(items: TThreadItem[], nameOf: (item: TThreadItem) => string): void {
  const fresh = items.filter(
    (i) => i.direction === 'inbound' && !i.readAt && !alerted.has(i.id) && Date.now() - i.createdAt.getTime() < 120_000,
  );
  for (const item of fresh) alerted.add(item.id);
  if (!alertsOn() || !fresh.length || document.visibilityState === 'visible') return;
  const names = [...new Set(fresh.map(nameOf))];
  const notification = new Notification(fresh.length === 1 ? `New message from ${names[0]}` : `${fresh.length} new messages`, {
    body: fresh.length === 1 ? 'Open Firm Chat to read it.' : `From ${names.join(', ')}`,
    tag: 'firm-chat-new-message',
  });
  notification.onclick = () => {
    window.focus();
    notification.close();
  };
  playTone();
}
