export { announce, CHAT_CHANNEL, NOTIFY_CTE, notifyPayload, OWNERSHIP_PAYLOAD, RESYNC_PAYLOAD } from './chat-events';
export type { ChatEvents, TChatChange } from './chat-events';
