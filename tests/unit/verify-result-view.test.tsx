import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { Router } from 'wouter';
import {
  checkOf,
  describeManifestCheck,
  formatUtc,
  problemSentence,
  withReadersTime,
  type TVerifiedFile,
  type TVerifyResult,
} from '../../client/src/features/audit/verify-result';
import { VerifyResultView } from '../../client/src/features/audit/verify-result-view';
import { formatDateTime } from '../../client/src/lib/format';

// Verify a copy's answer as a director reads it (server/export/README.md "Evidence exports"): a table that does not
// reassure when it should not, counts in words that agree, and one way of writing a moment.
const A = 'a'.repeat(64);
const B = 'b'.repeat(64);
const C = 'c'.repeat(64);
const file = (fields: Partial<TVerifiedFile> & Pick<TVerifiedFile, 'path'>): TVerifiedFile => ({
  sha256: A,
  bytes: 100,
  found: true,
  matches: true,
  actualSha256: A,
  problem: null,
  ...fields,
});
const manifestOf = (files: TVerifiedFile[], extra: string[] = []): NonNullable<TVerifyResult['manifest']> => ({
  subject: { type: 'client', id: 12, name: 'Amelia Hart' },
  exportedAt: '2026-03-02T10:00:05.000Z',
  exportedBy: { id: 1, name: 'Dee Director' },
  auditHead: { id: 40, hash: C },
  files,
  missing: [],
  extra,
  allMatch: files.every((f) => f.found && f.matches) && extra.length === 0,
});
const result = (fields: Partial<TVerifyResult>): TVerifyResult => ({
  fileName: 'copy.zip',
  kind: 'zip',
  sha256: C,
  bytes: 5000,
  export: null,
  storedFile: null,
  manifest: null,
  verdict: 'unknown',
  summary: 'Firm Chat has no record of exporting this file.',
  ...fields,
});
const render = (r: TVerifyResult) =>
  renderToStaticMarkup(
    <Router ssrPath="/audit">
      <VerifyResultView result={r} />
    </Router>,
  );
/** The text a reader sees, tags dropped. */
const textOf = (html: string) =>
  html
    .replace(/<[^>]+>/g, '')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');

describe('the line above the table', () => {
  const nine = (wrong: Partial<TVerifiedFile>[]) =>
    Array.from({ length: 9 }, (_, i) => file({ path: `exhibits/00${i}-x.pdf`, ...(wrong[i] ?? {}) }));

  it('agrees with its count, and a missing file is not one that "does not match"', () => {
    expect(describeManifestCheck({ files: nine([]), extra: [] })).toBe(
      'All 9 files the manifest lists are there, unchanged, and nothing was added.',
    );
    expect(describeManifestCheck({ files: nine([{ matches: false, actualSha256: B }]), extra: [] })).toBe(
      '1 of 9 files listed does not match.',
    );
    expect(describeManifestCheck({ files: nine([{ matches: false }, { matches: false }]), extra: [] })).toBe(
      '2 of 9 files listed do not match.',
    );
    expect(describeManifestCheck({ files: nine([{ found: false, matches: false, actualSha256: null }]), extra: [] })).toBe(
      '1 of 9 files listed is missing.',
    );
    expect(
      describeManifestCheck({
        files: nine([{ matches: false }, { found: false, matches: false }, { found: false, matches: false }]),
        extra: [],
      }),
    ).toBe('1 of 9 files listed does not match and 2 are missing.');
    expect(describeManifestCheck({ files: nine([]), extra: ['notes.txt'] })).toBe(
      'Every file listed matches; 1 entry is not in the manifest.',
    );
    expect(describeManifestCheck({ files: [file({ path: 'a', matches: false })], extra: ['x', 'y'] })).toBe(
      '1 of 1 file listed does not match; 2 entries are not in the manifest.',
    );
  });

  it('against a manifest the trail does not know, files as listed are not called unchanged', () => {
    expect(describeManifestCheck({ files: nine([]), extra: [] }, false)).toBe(
      'The 9 files are as this manifest lists them, and nothing was added; but whoever made the ZIP may have written the manifest.',
    );
    expect(describeManifestCheck({ files: nine([]), extra: ['x'] }, false)).toBe(
      'Every file is as listed; 1 entry is not in the manifest.',
    );
  });

  it("goes by the server's judgement of each file: bytes that are the manifest's yet not what was recorded do not match", () => {
    const forged = file({ path: 'exhibits/001-x.pdf', matches: false, problem: 'differs from what messages.json recorded for exhibit 1' });
    expect(checkOf(forged)).toBe('differs');
    const declared = file({
      path: 'exhibits/002-y.pdf',
      problem: 'differs from what messages.json recorded for exhibit 2, as the manifest’s list of missing files says',
    });
    expect(checkOf(declared)).toBe('matches');
    expect(checkOf(file({ path: 'c', found: false, matches: false, actualSha256: null }))).toBe('missing');
    expect(problemSentence('differs from the manifest')).toBe('Differs from the manifest.');
    expect(problemSentence('not in the ZIP.')).toBe('Not in the ZIP.');
  });
});

describe("the server's sentence, its moment written as the card writes every moment", () => {
  const at = '2026-11-26T14:03:22.000Z';
  const reader = formatDateTime(new Date(at));
  it('rewrites the moment, taking the audit event into the same brackets', () => {
    expect(
      withReadersTime(
        'This copy of the court bundle of Amelia Hart that Dee Director exported on 26 Nov 2026 at 14:03 UTC (audit event #812) has been altered: 1 file differs.',
        at,
      ),
    ).toBe(
      `This copy of the court bundle of Amelia Hart that Dee Director exported on ${reader} (2026-11-26 14:03:22 UTC, audit event #812) has been altered: 1 file differs.`,
    );
    expect(withReadersTime('Exported on 26 Nov 2026 at 14:03 UTC.', at)).toBe(`Exported on ${reader} (2026-11-26 14:03:22 UTC).`);
  });
  it('leaves a sentence without that moment, or with another, as it is', () => {
    expect(withReadersTime('Firm Chat has no record of this file.', at)).toBe('Firm Chat has no record of this file.');
    expect(withReadersTime('Exported on 25 Nov 2026 at 14:03 UTC.', at)).toBe('Exported on 25 Nov 2026 at 14:03 UTC.');
    expect(withReadersTime('Exported on 26 Nov 2026 at 14:03 UTC.', 'not a date')).toBe('Exported on 26 Nov 2026 at 14:03 UTC.');
  });
});

describe('the answer, as drawn', () => {
  it('unknown with a manifest: the table is headed as the ZIP’s own claims, and what the manifest says is not confirmed', () => {
    const html = textOf(render(result({ manifest: manifestOf([file({ path: 'transcript.pdf' })]) })));
    expect(html).toContain('What the ZIP’s own manifest says (not confirmed by the audit trail)');
    expect(html).not.toContain('Files in the ZIP, checked against its manifest');
    expect(html).toContain('by Dee Director');
    expect(html).toContain('the audit trail does not confirm it');
    expect(html).toContain(`(${formatUtc('2026-03-02T10:00:05.000Z')})`);
    // Its rows agree with the ZIP's own claim: no tick, no "matches".
    expect(html).toContain('= as listed');
    expect(html).not.toContain('✓ matches');
  });

  it('altered: a ✗ row shows both fingerprints in full, the problem in words, and its mark as text', () => {
    const bad = file({
      path: 'exhibits/002-Tenancy agreement.pdf',
      matches: false,
      actualSha256: B,
      problem: 'differs from the manifest',
    });
    const html = render(
      result({
        verdict: 'altered',
        summary: 'This ZIP has been altered since its manifest was written.',
        manifest: manifestOf([file({ path: 'transcript.pdf' }), bad]),
      }),
    );
    const row = /<tr data-check="differs">.*?<\/tr>/s.exec(html)?.[0] ?? '';
    expect(textOf(row)).toContain('Differs from the manifest.');
    expect(row).toContain(A);
    expect(row).toContain(B);
    expect(textOf(row)).toContain('✗ differs');
    // A matching row's full hash is one disclosure away, never only in a tooltip.
    const good = /<tr data-check="matches">.*?<\/tr>/s.exec(html)?.[0] ?? '';
    expect(good).toMatch(/<details[^>]*>.*<code class="verify-full-sha">a{64}<\/code>.*<\/details>/s);
    expect(good).not.toContain('title="SHA-256');
    expect(textOf(html)).toContain('1 of 2 files listed does not match.');
  });

  it('a stored file: identical to the file a client sent, the client linked, the date as the rest of the card writes it', () => {
    const at = '2026-02-11T09:30:00.000Z';
    const html = render(
      result({
        kind: 'pdf',
        verdict: 'unknown',
        summary: 'This file is identical to Ref fdp.exe, as the server words it. It is a file the firm holds, not an export.',
        storedFile: {
          attachmentId: 7,
          fileName: 'Ref \u202Efdp.exe',
          mimeType: 'application/pdf',
          bytes: 48213,
          direction: 'inbound',
          at,
          subject: { type: 'client', id: 12, name: 'Amelia Hart' },
          caseId: 3,
        },
      }),
    );
    expect(textOf(html)).toContain(
      `This file is identical to Ref [U+202E]fdp.exe, which Amelia Hart sent to the firm on ${formatDateTime(new Date(at))} (2026-02-11 09:30:00 UTC).`,
    );
    expect(html).toContain('href="/clients/12"');
    expect(html).toContain('href="/cases/3"');
    expect(html).not.toContain('\u202E');
    expect(textOf(html)).not.toContain('No export in the audit trail');
    expect(textOf(html)).not.toContain('as the server words it'); // the same said once, with the link
    expect(textOf(html)).toContain('The firm holds this file; it is not an export');
    expect(textOf(html)).toContain('no signature of the firm vouches for it');
  });

  it('a found export: its moment in the same format, and the link to the trail explained in plain words', () => {
    const at = '2026-03-02T10:00:05.000Z';
    const html = textOf(
      render(
        result({
          verdict: 'genuine',
          summary: 'This is the court bundle.',
          export: {
            auditEventId: 41,
            at,
            by: { id: 1, name: 'Dee Director' },
            subject: { type: 'client', id: 12, name: 'Amelia Hart' },
            format: 'zip',
            part: null,
          },
          manifest: manifestOf([file({ path: 'transcript.pdf' })]),
        }),
      ),
    );
    expect(html).toContain(`by Dee Director on ${formatDateTime(new Date(at))} (2026-03-02 10:00:05 UTC)`);
    expect(html).toContain('Files in the ZIP, checked against its manifest');
    expect(html).not.toContain('the trail from there back');
    expect(html).toContain('opens the audit trail at this export');
  });
});
