export { announceNotifications, notifyPeople, NOTIFICATION_KINDS, type TNewNotification, type TNotificationKind } from './notify-people';
export { markThreadNotificationsRead } from './notifications';
