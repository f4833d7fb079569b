// The bell, and its desktop alerts when the live stream says something is new.
export { NotificationBell } from './notification-bell';
export { alertNewNotifications } from './notification-alerts';
