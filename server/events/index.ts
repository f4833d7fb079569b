export { NOTIFY_CTE } from './chat-events';
export type { ChatEvents, TChatChange } from './chat-events';
