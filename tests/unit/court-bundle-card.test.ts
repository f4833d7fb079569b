import { describe, expect, it } from 'vitest';
import { exportCookieName, newExportTicket, readSavedExport } from '../../client/src/features/clients/export-ticket';
import { describeFilesNotHeld } from '../../client/src/features/clients/files-not-held';

// The court bundle card's own rules (server/export/README.md "Evidence exports"): the ticket it names its request
// with, the server's cookie it reads back, and the warning about files the bundle will lack.
const SHA = 'ab12cd34ef56ab12cd34ef56ab12cd34ef56ab12cd34ef56ab12cd34ef56ab12';

describe('the ticket a bundle request carries', () => {
  it('is 32 characters of base64url, what the server takes (16–64 of [A-Za-z0-9_-]), and never the same twice', () => {
    const tickets = Array.from({ length: 200 }, () => newExportTicket());
    for (const ticket of tickets) expect(ticket).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(new Set(tickets).size).toBe(tickets.length);
  });
});

describe("reading the server's cookie for a ticket", () => {
  const ticket = 'Abc_def-0123456789xyzXYZ';
  const name = exportCookieName(ticket);

  it('finds its hash and size among other cookies', () => {
    expect(name).toBe(`firm_chat_export_${ticket}`);
    expect(readSavedExport(`theme=dark; ${name}=${SHA}.1234567; other=1`, ticket)).toEqual({ sha256: SHA, bytes: 1234567 });
    expect(readSavedExport(`${name}=${SHA}.0`, ticket)).toEqual({ sha256: SHA, bytes: 0 });
  });

  it("is null while there is none, for another ticket's cookie, and for a value that is not a hash and a size", () => {
    expect(readSavedExport('', ticket)).toBeNull();
    expect(readSavedExport(`firm_chat_export_other=${SHA}.12`, ticket)).toBeNull();
    expect(readSavedExport(`${name}x=${SHA}.12`, ticket)).toBeNull();
    expect(readSavedExport(`${name}=${SHA.toUpperCase()}.12`, ticket)).toBeNull();
    expect(readSavedExport(`${name}=${SHA.slice(1)}.12`, ticket)).toBeNull();
    expect(readSavedExport(`${name}=${SHA}`, ticket)).toBeNull();
    expect(readSavedExport(`${name}=${SHA}.-1`, ticket)).toBeNull();
    expect(readSavedExport(`${name}=`, ticket)).toBeNull(); // expired, as the page leaves it
  });
});

describe('the warning before a bundle misses files', () => {
  const stored = { state: 'stored' as const };
  it('says nothing when the firm holds every file', () => {
    expect(describeFilesNotHeld([])).toBeNull();
    expect(describeFilesNotHeld([stored, stored])).toBeNull();
  });

  it('counts files still downloading and failed, in words that agree with the count', () => {
    expect(describeFilesNotHeld([stored, { state: 'pending' }, { state: 'failed' }])).toBe(
      '2 files are not held by the firm yet (still downloading or failed): they will be listed as missing in the bundle.',
    );
    expect(describeFilesNotHeld([{ state: 'failed' }, stored])).toBe(
      '1 file is not held by the firm yet (still downloading or failed): it will be listed as missing in the bundle.',
    );
  });

  it('names files erased under the retention policy apart: they will never be held', () => {
    const erased = { state: 'stored' as const, erasedAt: new Date('2026-01-01T00:00:00Z') };
    expect(describeFilesNotHeld([erased, { state: 'pending' }])).toBe(
      '1 file is not held by the firm yet (still downloading or failed): it will be listed as missing in the bundle. ' +
        '1 file was erased under the retention policy: it will be listed as missing in the bundle.',
    );
    expect(describeFilesNotHeld([{ state: 'stored', erasedAt: null }])).toBeNull();
  });
});
