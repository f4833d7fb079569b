import { describe, expect, it } from 'vitest';
import type { TAuditItem } from '../../client/src/features/audit/audit-actions';
import { describeAuditEvent } from '../../client/src/features/audit/describe-audit-event';

// A walled attempt as the Audit page says it (server/access/README.md "What the trail records"):
// the person, the matter (unnamed to a reader walled from it) and the wall, never a procedure's name.

const SAM = { id: 2, name: 'Sam Staff' };

const denied = (fields: Partial<TAuditItem>): TAuditItem => ({
  id: 100,
  at: new Date('2026-03-02T10:00:00Z'),
  user: SAM,
  action: 'access.denied',
  subject: 'client:12',
  detail: {},
  ip: '127.0.0.1',
  prevHash: '0'.repeat(64),
  hash: 'f'.repeat(64),
  subjectLabel: 'Amelia Hart',
  subjectLink: '/clients/12',
  subjectErased: false,
  related: {},
  ...fields,
});

describe('an access.denied sentence', () => {
  it.each<[string, Partial<TAuditItem>, string]>([
    [
      'a conversation, behind a screen',
      { detail: { path: 'inbox.thread', opened: 'conversation', wall: 'screen' } },
      'Sam Staff tried to open the conversation with Amelia Hart, which they are screened from',
    ],
    [
      "a client's page, behind a restriction",
      { detail: { path: 'clients.get', opened: 'client', wall: 'restriction' } },
      'Sam Staff tried to open Amelia Hart’s page, which is restricted to its members (they are not one)',
    ],
    [
      'a case',
      {
        subject: 'case:3',
        subjectLabel: 'HART-2026-001 · Hart v Northwind Lettings',
        detail: { path: 'cases.get', opened: 'case', wall: 'screen' },
      },
      'Sam Staff tried to open the case HART-2026-001 · Hart v Northwind Lettings, which they are screened from',
    ],
    [
      'a file',
      { subject: 'communication:40', detail: { path: 'GET /api/media/7', opened: 'file', wall: 'screen' } },
      'Sam Staff tried to open a file in Amelia Hart’s chat, which they are screened from',
    ],
    [
      'an export',
      { detail: { path: 'GET /api/export/client/12.zip', opened: 'export', wall: 'restriction' } },
      'Sam Staff tried to export Amelia Hart’s chat, which is restricted to its members (they are not one)',
    ],
    [
      'a matter the reader is screened from too: not named',
      { subjectLabel: null, subjectLink: null, detail: { path: 'inbox.thread', opened: 'conversation', wall: 'screen' } },
      'Sam Staff tried to open a conversation in a matter you are screened from (they are screened from it)',
    ],
    [
      'a row written before what was tried was kept: its path left out',
      { detail: { path: 'inbox.people' } },
      'Sam Staff tried to open Amelia Hart, which they are walled from',
    ],
  ])('%s', (_name, fields, sentence) => {
    const said = describeAuditEvent(denied(fields));
    expect(said).toBe(sentence);
    expect(said).not.toMatch(/\b(inbox|clients|cases)\.[a-z]+|\/api\//i);
  });
});
