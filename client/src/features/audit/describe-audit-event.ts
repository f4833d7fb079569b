import { readAuditDetail } from '../../../../shared/audit/read-audit-detail';
import { showInvisibleCharacters } from '../../../../shared/visible-text';
import { ACTION_LABEL, type TAuditAction, type TAuditItem } from './audit-actions';
import { sentenceOf, subjectNameOf, type TDescriber } from './sentences/audit-sentence';
import { AUDIT_SENTENCES } from './sentences/audit-sentences';

export { subjectNameOf };

// Subjects that name no record, or none the trail knows: the sentence says all there is. A
// verification of a file no export in the trail has is about `export` (server/export/README.md "Evidence exports").
const NAMES_NO_RECORD = /^(provider|templates|audit|business_hours|export|wording)$/;

/** Whether an event is about nothing a reader can open (the About column shows "—"): no record, or the person acting themself. */
export function isAboutNoRecord(item: Pick<TAuditItem, 'subject' | 'user'>): boolean {
  return NAMES_NO_RECORD.test(item.subject) || (item.user !== null && item.subject === `user:${item.user.id}`);
}

/** The export event a verification found (its `auditEventId`), for a link to it; null for any other event. */
export function verifiedExportEventOf(item: Pick<TAuditItem, 'action' | 'detail'>): number | null {
  if (item.action !== 'export.verify') return null;
  const id = readAuditDetail('export.verify', item.detail).auditEventId;
  return typeof id === 'number' && id > 0 ? id : null;
}

/**
 * One sentence a person can read for an event: who did what to what, with the numbers that matter
 * ("Dee Director exported Amelia Hart’s chat as PDF (12 messages, 3.6 KB, SHA-256 ab12…)"). Names
 * come from the server (`subjectLabel`, `related`); the detail is read through its action's schema,
 * and what does not read is left out. Text from outside (names, emails, file names, reasons) is in
 * it, so every invisible or direction-changing character is shown by its code.
 */
export function describeAuditEvent(item: TAuditItem): string {
  const s = sentenceOf(item);
  const describe = AUDIT_SENTENCES[item.action] as TDescriber<TAuditAction> | undefined;
  // An action this page does not know (a newer server's): its label, or its name.
  if (!describe) {
    const label = (ACTION_LABEL as Record<string, string>)[item.action] ?? item.action;
    return showInvisibleCharacters(`${s.actor}: ${label}${item.subject ? ` (${s.subject})` : ''}`);
  }
  return showInvisibleCharacters(describe(readAuditDetail(item.action, item.detail), s));
}
