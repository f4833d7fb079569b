import { navigate } from 'wouter/use-browser-location';
import type { TUtils } from '../../lib/cache-patches';
import { alertsOn, playTone } from '../../lib/desktop-alerts';
import { describeNotification, notificationPath } from './notification-text';

// Desktop alerts for notifications follow the person's Alerts switch (the inbox's "Alerts on/off"),
// as new messages do: only while the app is in the background, once per notification. A new
// message in one's own conversation is already alerted as a new message: not twice.
const alerted = new Set<number>();
const FRESH_MS = 120_000;

/** After the live stream said this person has new notifications: alert the fresh ones, if alerts are on. */
export async function alertNewNotifications(utils: TUtils, myId: number | undefined): Promise<void> {
  if (!alertsOn() || document.visibilityState === 'visible') return;
  const page = await utils.client.notifications.list.query({ limit: 10 }).catch(() => null);
  if (!page) return; // not read this time: the bell still shows them
  const fresh = page.items.filter((n) => !n.readAt && n.kind !== 'message' && !alerted.has(n.id) && Date.now() - n.at.getTime() < FRESH_MS);
  for (const n of fresh) alerted.add(n.id);
  if (!fresh.length) return;
  const first = fresh[0]!;
  const notification = new Notification(fresh.length === 1 ? describeNotification(first, myId) : `${fresh.length} new notifications`, {
    body: fresh.length === 1 ? 'Open Firm Chat to see it.' : fresh.map((n) => describeNotification(n, myId)).join('\n'),
    tag: 'firm-chat-notification',
  });
  notification.onclick = () => {
    window.focus();
    navigate(notificationPath(first));
    notification.close();
  };
  playTone();
}
