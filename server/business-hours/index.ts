export { autoReplyCtes, listAutoReplyCandidates, type TReplyCandidate } from './queue-auto-replies';
export { readBusinessHours } from './business-hours';
export { DEFAULT_TIME_ZONE, type TBusinessHours } from './business-hours-schema';
