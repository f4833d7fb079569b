export { loadThreadItems, type TThreadItem } from './thread-items';
export { ZThreadItem } from './inbox-outputs';
export { scheduleUnreadFolding } from './unread-kept';
