export { clientHeldSql, heldSql } from './holds';
export { scheduleRetentionWork, runApprovedBatch } from './retention-worker';
