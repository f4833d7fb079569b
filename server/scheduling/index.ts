export { startScheduledSendWorker } from './scheduled-send-worker';
export type { TScheduledSendWorker, TScheduledSendWorkerOptions } from './scheduled-send-worker';
export type { TScheduledSend } from './list-scheduled-sends';
