export { announce, announcedCte, CHAT_CHANNEL, notifyPayload, OWNERSHIP_PAYLOAD, RESYNC_PAYLOAD } from './chat-events';
export type { ChatEvents, TChatChange } from './chat-events';
