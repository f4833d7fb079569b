import { describe, expect, it } from 'vitest';
import { ACTION_LABEL, type TAuditItem } from '../../client/src/features/audit/audit-actions';
import { describeAuditEvent } from '../../client/src/features/audit/describe-audit-event';
import { AUDIT_SENTENCES } from '../../client/src/features/audit/sentences/audit-sentences';
import { AUDIT_ACTIONS, AUDIT_DETAILS, parseAuditDetail, type TAuditAction, type TAuditDetail } from '../../shared/audit/audit-details';
import { readAuditDetail } from '../../shared/audit/read-audit-detail';

// Each action's detail is typed once (shared/audit/audit-details.ts): the server writes it, the
// trail's readers parse it, the Audit screen's sentences read it. What the server writes is checked
// against the schemas end to end in tests/integration/audit-details.test.ts; here, one detail per
// action as the server writes it, and how rows of earlier versions read.

const SHA = 'ab12cd34ef56ab12cd34ef56ab12cd34ef56ab12cd34ef56ab12cd34ef56ab12';
const BATCH = '0b6f1f3e-5d2a-4c1e-9a7b-2f3e4d5c6b7a';
const AT = '2026-03-02T09:00:00.000Z';

/** One detail of every action, as the server writes it (an action left out does not compile). */
const SAMPLES: { [A in TAuditAction]: TAuditDetail<A> } = {
  'auth.sign_in': { method: 'password' },
  'auth.sign_in_failed': { email: 'sam@firm.test', reason: 'wrong_password' },
  'auth.sign_in_limited': { limited: 'account', email: 'sam@firm.test', attempts: 8, window_minutes: 15, blocked_until: AT },
  'auth.sign_out': {},
  'inbox.link': { digits: '447700900999', moved: 2, ids: [40, 41] },
  'inbox.unlink': { digits: '447700900999', moved: 0, ids: [] },
  'client.number_add': { digits: '447700900124' },
  'client.number_remove': { digits: '447700900124' },
  // A court bundle, as tests/integration/court-bundle.test.ts pins it.
  'export.create': {
    format: 'zip',
    sha256: SHA,
    bytes: 3706,
    messages: 12,
    fileName: 'Amelia Hart court bundle.zip',
    exhibits: 3,
    missingExhibits: 1,
    manifestSha256: SHA,
    transcriptSha256: SHA,
    jsonSha256: SHA,
  },
  'export.verify': { sha256: SHA, verdict: 'genuine', auditEventId: 41, attachmentId: null },
  'settings.check_connection': { status: 'Live' },
  'templates.refresh': { count: 4 },
  'client.opt_out': { source: 'message "STOP"', digits: '447700900123' },
  'client.opt_in': { source: 'cleared by a director', digits: ['447700900123', '447700900124'] },
  'chat.reconciled': { chatMsgId: 'wamid.1', undone: "the id was a message sent from the firm's phone" },
  'communication.refile': { caseId: 3, records: [{ id: 40, fromCaseId: null }] },
  'user.add': { email: 'rosa@firm.test', role: 'staff' },
  'user.role_change': { from: 'staff', to: 'director' },
  'user.deactivate': { role: 'staff', sessionsEnded: 2, conversationsUnassigned: 1 },
  'user.reactivate': { role: 'staff' },
  'access.restrict': { conversationUnassigned: true, responsibleCleared: true },
  'access.unrestrict': {},
  'access.member_add': { userId: 1, name: 'Dee Director' },
  'access.member_remove': { userId: 1, name: 'Dee Director' },
  'access.screen': { userId: 2, name: 'Sam Staff', reason: 'Acted for the other side', self: false },
  'access.unscreen': { userId: 2, name: 'Sam Staff' },
  'access.denied': { path: '/trpc/clients.get' },
  'inbox.assign': { from: null, to: 2 },
  'inbox.state': { from: 'snoozed', to: 'open', snoozeEnded: '2026-03-02T09:00:00.123456+00:00' },
  'client.responsible': { from: 2, to: null },
  'case.status': { from: 'open', to: 'closed' },
  'media.view': { attachmentId: 5, communicationId: 40, bytes: 123_000 },
  'hold.place': { holdId: 2, reason: 'Litigation expected' },
  'hold.release': { holdId: 2 },
  'retention.destroy': {
    batchId: BATCH,
    kind: 'erasure',
    records: 40,
    files: 2,
    bytes: 2048,
    cases: 1,
    clients: 1,
    leftOut: 0,
    itemsSha256: SHA,
  },
  'erasure.request': { requestId: 4, receivedAt: AT, noted: true },
  'erasure.decide': { requestId: 4, decision: 'erase', batchId: BATCH },
  'audit.verify': { ok: true, rows: 1234, headId: 1234 },
  'chat.schedule': { scheduledSendId: 7, kind: 'template', sendAt: AT, caseId: 3, template: 'appointment_reminder', unlessReplied: true },
  'chat.edit_scheduled': { scheduledSendId: 7, kind: 'text', sendAt: AT },
  'chat.reschedule': { scheduledSendId: 7, kind: 'file', from: AT, sendAt: '2026-03-03T09:00:00.000Z' },
  'chat.cancel_scheduled': { scheduledSendId: 7, kind: 'text', sendAt: AT, was: 'not_sent' },
  'auth.password_change': { sessionsEnded: 2 },
  'settings.security': { requireMfa: { from: 'none', to: 'directors' }, sessionIdleMinutes: { from: 10080, to: 30 } },
  'settings.read_receipts': { from: 'off', to: 'assignee' },
  'settings.business_hours': {
    first: false,
    timeZone: { from: 'Europe/London', to: 'Europe/Paris' },
    week: { from: ['1 09:00-17:30'], to: ['1 09:00-17:30', '2 09:00-17:30'] },
    closedDates: { added: ['2026-12-25'], removed: [] },
    autoReply: { from: null, to: { length: 83 } },
  },
  'db.change': {
    table: 'legal_holds',
    op: 'update',
    row: { id: 2 },
    changed: ['released_at', 'released_by'],
    dbRole: 'firm_chat_app',
    actorId: null,
  },
  'auth.session_revoked': { method: 'password', current: true },
  'user.sessions_ended': { sessionsEnded: 3 },
  'auth.passkey_add': { passkeyId: 7, name: 'Work laptop' },
  'auth.passkey_remove': { passkeyId: 7, name: 'Work laptop', sessionsEnded: 2 },
  'wording.add': { wordingId: 7, title: 'Hearing date' },
  'wording.update': { wordingId: 7, title: 'Hearing listed', from: 'Hearing date', changed: ['title', 'body'] },
  'wording.remove': { wordingId: 7, title: 'Hearing listed' },
  'number.add': { numberId: 2, phone: '447700900222', label: 'Leeds office' },
  'number.update': { numberId: 2, phone: '447700900222', label: 'Leeds', from: 'Leeds office', changed: ['label', 'apiKey'] },
  'number.deactivate': { numberId: 2, phone: '447700900222', label: 'Leeds' },
  'import.commit': {
    importId: '0b5c9a4e-5f1d-4c1e-9d36-1f0f2a7b3c11',
    caseId: 4,
    fileName: 'WhatsApp Chat with Anna Client.zip',
    fileSha256: 'ab'.repeat(32),
    imported: 1200,
    duplicates: 3,
    attachments: 14,
  },
  'auth.mfa_enrol': { method: 'totp' },
  'auth.mfa_remove': { method: 'totp', sessionsEnded: 2 },
  'auth.recovery_codes_regenerated': { count: 10 },
  'auth.step_up': { method: 'totp' },
  'user.invite': { invitationId: 4, name: 'Ivy Invited', role: 'staff', expiresAt: AT, replaced: true },
  'user.accept': { invitationId: 4, email: 'ivy@firm.test', role: 'staff', invitedBy: 2 },
  'user.invite_revoke': { invitationId: 4 },
};

const eventOf = (action: TAuditAction, detail: Record<string, unknown>): TAuditItem => ({
  id: 100,
  at: new Date('2026-03-02T10:00:00Z'),
  user: { id: 1, name: 'Dee Director' },
  action,
  subject: 'client:12',
  detail,
  ip: null,
  prevHash: '0'.repeat(64),
  hash: 'f'.repeat(64),
  subjectLabel: 'Amelia Hart',
  subjectLink: '/clients/12',
  subjectErased: false,
  related: {},
});

describe('audit details, typed once', () => {
  it('every action has a schema, a label in the filter and a sentence of its own', () => {
    expect(AUDIT_ACTIONS).toEqual(Object.keys(AUDIT_DETAILS));
    expect(Object.keys(ACTION_LABEL).sort()).toEqual([...AUDIT_ACTIONS].sort());
    expect(Object.keys(AUDIT_SENTENCES).sort()).toEqual([...AUDIT_ACTIONS].sort());
  });

  it.each(AUDIT_ACTIONS)('%s: what the server writes parses, reads back whole, and makes a sentence', (action) => {
    const detail = SAMPLES[action];
    expect(parseAuditDetail(action, detail).error?.issues ?? []).toEqual([]);
    expect(readAuditDetail(action, detail)).toEqual(detail);
    // Its own words, not the fallback of an action the page does not know ("Dee Director: Signed in").
    const sentence = describeAuditEvent(eventOf(action, detail));
    expect(sentence).not.toContain(`: ${ACTION_LABEL[action]}`);
    expect(sentence).not.toMatch(/undefined|null|NaN|\[object/);
  });

  it('a key the schema does not know, a missing one or one of another shape fails the strict parse', () => {
    expect(parseAuditDetail('client.number_add', { digits: '447700900124', note: 'x' }).success).toBe(false);
    expect(parseAuditDetail('client.number_add', {}).success).toBe(false);
    expect(parseAuditDetail('inbox.assign', { from: null, to: '2' }).success).toBe(false);
    expect(parseAuditDetail('auth.sign_in', { i: 0 }).success).toBe(false);
  });

  it('a row of an earlier version reads field by field: what still reads is kept, the rest left out', () => {
    // Verifications before files the firm holds were looked up recorded no attachmentId.
    expect(readAuditDetail('export.verify', { sha256: SHA, verdict: 'genuine', auditEventId: 41 })).toEqual({
      sha256: SHA,
      verdict: 'genuine',
      auditEventId: 41,
    });
    expect(readAuditDetail('user.deactivate', { role: 'staff', sessionsEnded: 'many', gone: true })).toEqual({ role: 'staff' });
    expect(readAuditDetail('access.screen', { name: '', reason: 'Conflict' })).toEqual({ reason: 'Conflict' });
    expect(readAuditDetail('communication.refile', { caseId: null, records: [1, 2] })).toEqual({ caseId: null });
    expect(readAuditDetail('inbox.link', null)).toEqual({});
    expect(readAuditDetail('inbox.link', ['447700900999'])).toEqual({});
    expect(readAuditDetail('made.up' as TAuditAction, { digits: '1' })).toEqual({});
  });
});
