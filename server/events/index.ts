export { CHAT_CHANNEL, NOTIFY_CTE, RESYNC_PAYLOAD } from './chat-events';
export type { ChatEvents, TChatChange } from './chat-events';
