// The inbox page, and the live stream the whole signed-in app listens to.
export { InboxPage } from './inbox-page';
export { useLiveUpdates } from './live-updates';
