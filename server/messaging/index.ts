export { InboundBatcher } from './inbound-batcher';
export type { TStoredInbound } from './store-inbound';
export type { TInboundAttachment, TInboundMessage, TMessageExtra, TMessageUpdate, TReceipt } from './inbound-message';
export { INTERRUPTED_SEND_ERROR, markInterruptedSends, SWEEP_SENDS_EVERY_MS } from './interrupted-sends';
export { applyMessageUpdates } from './message-updates';
export { adoptKeptReceipts, applyReceipts } from './receipts';
export { ZBody, ZTemplateChoice } from './send-inputs';
export { sendChatMessage, sendTemplateMessage } from './send-message';
export { storeInboundMessages } from './store-inbound';
