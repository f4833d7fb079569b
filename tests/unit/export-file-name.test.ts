import { describe, expect, it } from 'vitest';
import { exportFileName } from '../../server/export/export-route';
import type { TExportHeader } from '../../server/export/read-export';

const header = (name: string, type: 'client' | 'case' = 'client', reference: string | null = null): TExportHeader => ({
  firm: 'F',
  subject: { type, id: 1, name, reference, clientName: name, numbers: [] },
  period: null,
  count: 0,
  internalNotes: 0,
  notOnCase: null,
  exportedAt: '2026-11-23T10:00:00.000Z',
  exportedBy: { id: 1, name: 'S', email: 's@f' },
  auditHead: { id: null, hash: '0'.repeat(64) },
});

describe('exportFileName', () => {
  it('names the subject and the day', () => {
    expect(exportFileName(header('Amelia Hart'), 'pdf')).toBe('Chat record - Amelia Hart - 2026-11-23.pdf');
    expect(exportFileName(header('Deposit dispute', 'case', 'HART-001'), 'json')).toBe(
      'Chat record - HART-001 Deposit dispute - 2026-11-23.json',
    );
  });

  it('cuts a long name between characters, never inside one (an emoji at the cut)', () => {
    const name = exportFileName(header(`${'a'.repeat(99)}😀 Ltd`), 'pdf');
    expect(name).toBe(`Chat record - ${'a'.repeat(99)}😀 - 2026-11-23.pdf`);
    expect(name).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/); // no half of a surrogate pair left
  });

  it('drops controls and direction overrides; path and reserved characters become spaces', () => {
    expect(exportFileName(header('\u202Efdp.exe'), 'pdf')).toBe('Chat record - fdp.exe - 2026-11-23.pdf');
    expect(exportFileName(header('A/B\\C: "D"\n<E>|?*'), 'pdf')).toBe('Chat record - A B C D E - 2026-11-23.pdf');
    expect(exportFileName(header('\u0007'), 'json')).toBe('Chat record - unnamed - 2026-11-23.json');
  });
});
