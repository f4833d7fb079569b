// The audit trail's screen, and the one wording a court bundle's card shares with it.
export { AuditPage } from './audit-page';
export { formatSize } from './verify-result';
