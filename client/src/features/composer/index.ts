// Writing and sending: the message box, the outbox that keeps what is sent until the server has it,
// the unsent work the app guards, and the rules a note's box shares (Enter, length).
export { Composer, type TSendActions } from './composer';
export { sendsOnEnter } from './enter-to-send';
export { describeLength, TEXT_LIMIT } from './message-length';
export { enqueueSend, useQueuedSends } from './outbox';
export { errorCodeOf, queuedItemOf, queuedToShow, type TQueuedCall, type TQueuedSend } from './queued-sends';
export { forgetUnsentWork, useLeaveGuard } from './unsent-work';
export { uploadFile } from './upload-file';
export { UPLOAD_LIMITS_TEXT } from './upload-limits-text';
export { useComposerHeight } from './use-composer-height';
export { sendFailureToastKey, useOutboxRunner } from './use-outbox-runner';
