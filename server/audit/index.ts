export { actorOf, recordAuditEvent, SYSTEM_ACTOR } from './record-audit-event';
export type { TActor, TAuditAction, TAuditDetail, TAuditEvent } from './record-audit-event';
export { readChainHead } from './audit-chain';
export type { TChainHead } from './audit-chain';
export { scheduleAuditCheckpoints } from './checkpoint-schedule';
export type { TCheckpointScheduleOptions } from './checkpoint-schedule';
export type { TCheckpoint } from './checkpoint-text';
