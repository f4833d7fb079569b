import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkCitations, describeProblems, headingAnchor, listCitingFiles, sectionsOf } from '../support/manual-citations';

// The manual is cited by file and section title from comments and documents (README.md "The
// manual"); nothing else would notice a title renamed, a section moved or a part deleted.
const ROOT = path.resolve(import.meta.dirname, '../..');
const FIXTURE = path.join(ROOT, 'tests/fixtures/manual-citations');
// This file names its fixture's broken citations on purpose, so the repository's check leaves it out.
const THIS_FILE = 'tests/unit/manual-citations.test.ts';

describe('citations of the manual', () => {
  it('each names an existing section of an existing file, in the whole repository', () => {
    const files = listCitingFiles(ROOT).filter((file) => file !== THIS_FILE);
    expect(files).toEqual(expect.arrayContaining(['README.md', 'server/ARCHITECTURE.md', 'tests/support/manual-citations.ts']));
    expect(files.some((file) => file.startsWith('node_modules/') || file.startsWith('tests/fixtures/'))).toBe(false);
    expect(describeProblems(checkCitations(ROOT, files))).toEqual([]);
  });

  it('names the file and line of every broken one, in every form, and passes the good ones', () => {
    expect(describeProblems(checkCitations(FIXTURE))).toEqual([
      'README.md:11: server/README.md#retries — server/README.md has no heading with the anchor #retries',
      'README.md:11: docs/missing.md — there is no file docs/missing.md',
      'README.md:12: see "Retries" — README.md has no section "Retries"',
      'server/code.ts:6: README "Retries" — no README.md has a section "Retries"',
      'server/code.ts:6: README "Records" — "Records" is a section of server/README.md and server/access/README.md: name the file',
      'server/code.ts:7: server/README.md "Ethical walls" — server/README.md has no section "Ethical walls"',
      'server/code.ts:7: server/nowhere/README.md "Files" — there is no file server/nowhere/README.md',
      'server/code.ts:8: README "Sending messages" — no README.md has a section "Sending messages"',
      'server/code.ts:9: server/decisions/0002-missing.md — there is no file server/decisions/0002-missing.md',
      'server/code.ts:9: decision 0003 — there is no server/decisions/0003-….md',
      'server/code.ts:10: server/README.md "Ethical walls" — server/README.md has no section "Ethical walls"',
    ]);
  });

  it('reads headings outside code blocks and paragraphs that open with a bold lead-in as sections', () => {
    const { titles, anchors } = sectionsOf(
      [
        '# The server',
        '',
        '**Unknown outcome.** A send…',
        'not **a lead-in** here',
        '```sh',
        '# a shell comment',
        '```',
        '## Reach (+ more)',
      ].join('\n'),
    );
    expect([...titles]).toEqual(['The server', 'Unknown outcome', 'Reach (+ more)']);
    expect([...anchors]).toEqual(['the-server', 'reach--more']);
    expect(headingAnchor('Quick-reply buttons')).toBe('quick-reply-buttons');
  });
});
