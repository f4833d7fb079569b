import { describe, expect, it } from 'vitest';
import { readAuditFilters, readHashPrefix, writeAuditFilters } from '../../client/src/features/audit/audit-filters';
import { ACTION_LABEL, type TAuditItem } from '../../client/src/features/audit/audit-actions';
import { describeAuditEvent, isAboutNoRecord, verifiedExportEventOf } from '../../client/src/features/audit/describe-audit-event';
import { formatDateTime } from '../../client/src/lib/format';

const DEE = { id: 1, name: 'Dee Director' };
const SAM = { id: 2, name: 'Sam Staff' };
const SHA = 'ab12cd34ef56ab12cd34ef56ab12cd34ef56ab12cd34ef56ab12cd34ef56ab12';

/** An event as audit.list returns it, with only what a case sets written out. */
const event = (fields: Partial<TAuditItem> & Pick<TAuditItem, 'action'>): TAuditItem => ({
  id: 100,
  at: new Date('2026-03-02T10:00:00Z'),
  user: DEE,
  subject: 'provider',
  detail: {},
  ip: '127.0.0.1',
  prevHash: '0'.repeat(64),
  hash: 'f'.repeat(64),
  subjectLabel: null,
  subjectLink: null,
  subjectErased: false,
  related: {},
  ...fields,
});
const amelia = { subject: 'client:12', subjectLabel: 'Amelia Hart', subjectLink: '/clients/12' };
const hartCase = { subject: 'case:3', subjectLabel: 'HART-2026-001 · Hart v Northwind Lettings', subjectLink: '/cases/3' };

describe('describeAuditEvent: one sentence a person can read', () => {
  it.each<[string, TAuditItem, string]>([
    [
      'an export, with its size and the start of its fingerprint',
      event({ action: 'export.create', ...amelia, detail: { format: 'pdf', sha256: SHA, bytes: 3706, messages: 12, fileName: 'x.pdf' } }),
      'Dee Director exported Amelia Hart’s chat as PDF (12 messages, 3.6 KB, SHA-256 ab12cd34ef56…)',
    ],
    [
      "a case's export",
      event({ action: 'export.create', ...hartCase, detail: { format: 'json', bytes: 900 } }),
      'Dee Director exported the chat of HART-2026-001 · Hart v Northwind Lettings as JSON (900 B)',
    ],
    [
      'a court bundle, with its exhibits and those whose files were gone',
      event({
        action: 'export.create',
        ...amelia,
        detail: {
          format: 'zip',
          sha256: SHA,
          bytes: 3706,
          messages: 12,
          fileName: 'x.zip',
          exhibits: 12,
          missingExhibits: 1,
          manifestSha256: SHA,
          transcriptSha256: SHA,
          jsonSha256: SHA,
        },
      }),
      'Dee Director exported the court bundle of Amelia Hart: 12 exhibits (1 missing), 12 messages, 3.6 KB, SHA-256 ab12cd34ef56…',
    ],
    [
      "a case's court bundle with nothing missing",
      event({ action: 'export.create', ...hartCase, detail: { format: 'zip', bytes: 900, exhibits: 1, missingExhibits: 0 } }),
      'Dee Director exported the court bundle of HART-2026-001 · Hart v Northwind Lettings: 1 exhibit, 900 B',
    ],
    [
      'a copy verified as genuine',
      event({ action: 'export.verify', ...amelia, detail: { sha256: SHA, verdict: 'genuine', auditEventId: 41 } }),
      'Dee Director verified a copy: genuine',
    ],
    [
      'an altered copy',
      event({ action: 'export.verify', ...amelia, detail: { sha256: SHA, verdict: 'altered', auditEventId: 41 } }),
      'Dee Director verified a copy: altered',
    ],
    [
      'a file the firm holds, taken out of a bundle',
      event({ action: 'export.verify', ...amelia, detail: { sha256: SHA, verdict: 'unknown', auditEventId: null, attachmentId: 7 } }),
      'Dee Director verified a copy: unknown — identical to a file the firm holds',
    ],
    [
      'a file the trail does not know',
      event({ action: 'export.verify', subject: 'export', detail: { sha256: SHA, verdict: 'unknown', auditEventId: null } }),
      'Dee Director verified a copy: unknown (no export in the trail has it)',
    ],
    ['a sign-in', event({ action: 'auth.sign_in', user: SAM, subject: 'user:2', subjectLabel: 'Sam Staff' }), 'Sam Staff signed in'],
    [
      "a deactivated account's sign-in",
      event({
        action: 'auth.sign_in_failed',
        user: null,
        subject: 'email:sam@firm.test',
        detail: { email: 'sam@firm.test', reason: 'deactivated' },
      }),
      'A sign-in as sam@firm.test failed: the account is deactivated',
    ],
    [
      'a wrong password',
      event({
        action: 'auth.sign_in_failed',
        user: null,
        subject: 'email:sam@firm.test',
        detail: { email: 'sam@firm.test', reason: 'wrong_password' },
      }),
      'A sign-in as sam@firm.test failed: wrong password',
    ],
    [
      'a failed sign-in recorded before reasons were',
      event({ action: 'auth.sign_in_failed', user: null, subject: 'email:sam@firm.test', detail: { email: 'sam@firm.test' } }),
      'A sign-in as sam@firm.test failed: wrong email or password',
    ],
    [
      'a snooze ended by the system',
      event({
        action: 'inbox.state',
        user: null,
        ip: null,
        ...amelia,
        detail: { from: 'snoozed', to: 'open', snoozeEnded: '2026-03-02T09:00:00Z' },
      }),
      'The system reopened a snoozed conversation with Amelia Hart: its snooze ended',
    ],
    [
      'a deactivation, phrased for people',
      event({
        action: 'user.deactivate',
        subject: 'user:2',
        subjectLabel: 'Sam Staff',
        detail: { role: 'staff', sessionsEnded: 13, conversationsUnassigned: 2 },
      }),
      'Dee Director deactivated Sam Staff: ended 13 sessions and 2 conversations went back to Unassigned',
    ],
    [
      'an assignment, with both people named',
      event({ action: 'inbox.assign', ...amelia, detail: { from: 1, to: 2 }, related: { from: 'Dee Director', to: 'Sam Staff' } }),
      'Dee Director assigned the conversation with Amelia Hart to Sam Staff (it was Dee Director’s)',
    ],
    [
      'a file read',
      event({
        action: 'media.view',
        subject: 'communication:40',
        subjectLabel: 'Amelia Hart',
        detail: { attachmentId: 5, communicationId: 40, bytes: 123_000 },
        related: { attachmentId: 'letter.jpg' },
      }),
      'Dee Director opened letter.jpg (120 KB) in Amelia Hart’s chat',
    ],
    [
      'an erased client',
      event({
        action: 'client.number_add',
        subject: 'client:12',
        subjectLabel: 'Erased client #12',
        subjectErased: true,
        detail: { digits: '447700900123' },
      }),
      'Dee Director added the number +447700900123 to Erased client #12',
    ],
    [
      'a refusal of erasure',
      event({ action: 'erasure.decide', ...amelia, detail: { requestId: 4, decision: 'refuse', grounds: 'legal_claims' } }),
      'Dee Director refused the erasure request of Amelia Hart (request #4): the records are needed for legal claims',
    ],
    [
      'a retention run',
      event({
        action: 'retention.destroy',
        user: null,
        subject: 'retention',
        detail: { batchId: 'b1', kind: 'retention', records: 120, files: 14, bytes: 3_355_443, clients: 3, cases: 5, leftOut: 2 },
      }),
      'The system destroyed 3 clients, 5 cases, 120 records and 14 files (3.2 MB) past their retention period; 2 items left out',
    ],
    [
      'an erasure carried out: the client is named as erased',
      event({
        action: 'retention.destroy',
        user: null,
        subject: 'client:12',
        subjectLabel: 'Erased client #12',
        subjectErased: true,
        detail: { batchId: 'b2', kind: 'erasure', records: 40, files: 2, bytes: 2048, clients: 1, cases: 1, leftOut: 0 },
      }),
      'The system erased 1 client, 1 case, 40 records and 2 files (2.0 KB) of Erased client #12 on request',
    ],
    [
      'a verification',
      event({ action: 'audit.verify', subject: 'audit', detail: { ok: true, rows: 1234, headId: 1234 } }),
      'Dee Director verified the trail: 1,234 events, unbroken, head #1234',
    ],
    [
      'a broken verification',
      event({ action: 'audit.verify', subject: 'audit', detail: { ok: false, rows: 10, headId: 40, firstBadId: 11 } }),
      'Dee Director verified the trail: it does not verify at event #11',
    ],
    [
      'a closed case',
      event({ action: 'case.status', ...hartCase, detail: { from: 'open', to: 'closed' } }),
      'Dee Director closed HART-2026-001 · Hart v Northwind Lettings',
    ],
    [
      'a legal hold',
      event({ action: 'hold.place', ...hartCase, detail: { holdId: 2, reason: 'Litigation expected' } }),
      'Dee Director placed a legal hold on HART-2026-001 · Hart v Northwind Lettings: “Litigation expected”',
    ],
  ])('%s', (_what, item, sentence) => {
    expect(describeAuditEvent(item)).toBe(sentence);
  });

  it('a court bundle recorded with the list of its missing exhibits counts them; one with no numbers says no more', () => {
    expect(
      describeAuditEvent(
        event({ action: 'export.create', ...amelia, detail: { format: 'zip', exhibits: 7, missingExhibits: [3, 5], messages: 12 } }),
      ),
    ).toBe('Dee Director exported the court bundle of Amelia Hart: 7 exhibits (2 missing), 12 messages');
    expect(describeAuditEvent(event({ action: 'export.create', ...amelia, detail: { format: 'zip' } }))).toBe(
      'Dee Director exported the court bundle of Amelia Hart',
    );
  });

  it('a verification of a file no export has is about no record ("—"); one of a known export is about its client or case', () => {
    expect(isAboutNoRecord(event({ action: 'export.verify', subject: 'export', detail: { verdict: 'unknown' } }))).toBe(true);
    expect(isAboutNoRecord(event({ action: 'export.verify', ...amelia, detail: { verdict: 'genuine' } }))).toBe(false);
    expect(isAboutNoRecord(event({ action: 'export.verify', ...hartCase, detail: { verdict: 'altered' } }))).toBe(false);
    expect(isAboutNoRecord(event({ action: 'auth.sign_in', user: SAM, subject: 'user:2' }))).toBe(true);
    expect(isAboutNoRecord(event({ action: 'user.deactivate', subject: 'user:2' }))).toBe(false);
  });

  it("a verification links to the export's event when it found one, and nothing else does", () => {
    const verified = (auditEventId: unknown) =>
      event({ action: 'export.verify', detail: { sha256: SHA, verdict: 'genuine', auditEventId } });
    expect(verifiedExportEventOf(verified(41))).toBe(41);
    expect(verifiedExportEventOf(verified(null))).toBeNull();
    expect(verifiedExportEventOf(verified('41'))).toBeNull();
    expect(verifiedExportEventOf(event({ action: 'export.create', detail: { auditEventId: 41 } }))).toBeNull();
  });

  it('a snooze names its end in the reader’s own format', () => {
    const until = '2026-03-09T09:00:00.000Z';
    expect(
      describeAuditEvent(event({ action: 'inbox.state', ...amelia, detail: { from: 'open', to: 'snoozed', snoozeUntil: until } })),
    ).toBe(`Dee Director snoozed the conversation with Amelia Hart until ${formatDateTime(new Date(until))}`);
  });

  it('a scheduled send names what, to whom and when, never its words', () => {
    const sendAt = '2026-03-03T09:00:00.000Z';
    expect(describeAuditEvent(event({ action: 'chat.schedule', ...amelia, detail: { scheduledSendId: 7, kind: 'text', sendAt } }))).toBe(
      `Dee Director scheduled a message to Amelia Hart for ${formatDateTime(new Date(sendAt))}`,
    );
    expect(
      describeAuditEvent(
        event({ action: 'chat.schedule', ...amelia, detail: { scheduledSendId: 8, kind: 'text', sendAt, unlessReplied: true } }),
      ),
    ).toBe(`Dee Director scheduled a message to Amelia Hart for ${formatDateTime(new Date(sendAt))}, unless they reply first`);
    expect(
      describeAuditEvent(event({ action: 'chat.cancel_scheduled', ...amelia, detail: { scheduledSendId: 7, kind: 'template', sendAt } })),
    ).toBe(`Dee Director cancelled a template to Amelia Hart scheduled for ${formatDateTime(new Date(sendAt))}`);
  });

  it('business hours read as the week a person would write, with the reply’s length only', () => {
    const detail = {
      first: true,
      timeZone: { from: null, to: 'Europe/London' },
      week: { from: null, to: ['1 09:00-17:30', '2 09:00-17:30', '3 09:00-13:00', '3 14:00-17:30'] },
      closedDates: { added: ['2026-12-25'], removed: [] },
      autoReply: { from: null, to: { length: 83 } },
    };
    expect(describeAuditEvent(event({ action: 'settings.business_hours', subject: 'business_hours', detail }))).toBe(
      'Dee Director set the business hours: time zone Europe/London; hours Mon–Tue 09:00–17:30, Wed 09:00–13:00 and 14:00–17:30; closed on 25 Dec 2026; an automatic reply (83 characters)',
    );
  });

  it('every action has a sentence of its own, even with an empty detail, and never shows raw keys', () => {
    for (const action of Object.keys(ACTION_LABEL) as TAuditItem['action'][]) {
      const sentence = describeAuditEvent(event({ action, ...amelia }));
      expect(sentence.length, action).toBeGreaterThan(10);
      expect(sentence, action).not.toMatch(/undefined|null|NaN|\[object|[a-z]+[A-Z][a-z]+:/);
    }
  });

  it('a detail of an unexpected shape falls back to words, not a crash', () => {
    const odd = { digits: { no: 'thing' }, bytes: 'many', records: 'x', rows: [1], to: { id: 3 }, reason: 42 };
    for (const action of Object.keys(ACTION_LABEL) as TAuditItem['action'][]) {
      expect(() => describeAuditEvent(event({ action, ...amelia, detail: odd })), action).not.toThrow();
    }
    expect(describeAuditEvent(event({ action: 'made.up' as never, ...amelia }))).toBe('Dee Director: made.up (Amelia Hart)');
  });

  it('shows characters that hide themselves or turn text around by their code, wherever they came from', () => {
    const typed = 'invoice\u202Efdp.exe\u200B@firm.test';
    const sentence = describeAuditEvent(
      event({ action: 'auth.sign_in_failed', user: null, subject: `email:${typed}`, detail: { email: typed, reason: 'unknown_email' } }),
    );
    expect(sentence).toBe('A sign-in as invoice[U+202E]fdp.exe[U+200B]@firm.test failed: no account has this email');
    const file = describeAuditEvent(
      event({
        action: 'media.view',
        subject: 'communication:1',
        subjectLabel: 'Amelia\u200B Hart',
        related: { attachmentId: 'cod\u202Eexe.doc' },
      }),
    );
    expect(file).not.toMatch(/[\u202E\u200B]/);
    expect(file).toContain('cod[U+202E]exe.doc');
  });

  it('falls back to the kind and id of a subject the server could not name', () => {
    expect(describeAuditEvent(event({ action: 'access.restrict', subject: 'case:9' }))).toBe(
      'Dee Director restricted case #9 to its members',
    );
  });
});

describe('the trail filters in the address', () => {
  it('round-trips, leaving out what is malformed', () => {
    const filters = { action: 'export.create' as const, userId: 4, subject: 'client:12', hash: 'ab12cd', from: 99 };
    expect(readAuditFilters(writeAuditFilters(filters))).toEqual(filters);
    expect(readAuditFilters('?action=nope&user=x&subject=client:abc&hash=zz&from=-1')).toEqual({});
    expect(writeAuditFilters({})).toBe('');
  });
  it('reads a typed hash prefix as a regulator would paste it', () => {
    expect(readHashPrefix(' AB12CD34… ')).toBe('ab12cd34');
    expect(readHashPrefix('SHA-256: ab12 cd34')).toBe('ab12cd34');
    expect(readHashPrefix('ab12c')).toBeNull();
    expect(readHashPrefix('ab12cg')).toBeNull();
  });
});
