export { isClientHeld, isHeld } from './holds';
export { scheduleRetentionWork, runApprovedBatch } from './retention-worker';
