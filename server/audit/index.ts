export { actorOf, recordAuditEvent, SYSTEM_ACTOR } from './record-audit-event';
export type { TActor } from './record-audit-event';
