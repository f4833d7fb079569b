import { Readable, Writable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { EXHIBIT_NAME_MAX_BYTES, exhibitFileName, exhibitPath } from '../../server/export/exhibit-file-name';
import {
  exhibitNumberOf,
  MAX_LINE_BYTES,
  RecordedExhibitsReader,
  recordedPath,
  type TRecordedExhibits,
} from '../../server/export/recorded-exhibits';
import { writeJsonExport } from '../../server/export/write-json-export';
import type { TExportHeader, TExportMessage } from '../../server/export/read-export';

// A court bundle's exhibits are unpacked on any system (server/export/README.md "Evidence exports"): every name a
// client's phone can send must come out as one file, named so every OS and ZIP reader takes it.

const PDF = 'application/pdf';
const bytes = (name: string) => Buffer.byteLength(name);

describe('exhibitFileName', () => {
  it('keeps an ordinary name as it is', () => {
    expect(exhibitFileName('Tenancy agreement (signed).pdf', PDF)).toBe('Tenancy agreement (signed).pdf');
    expect(exhibitFileName('Договор — καλημέρα.docx', PDF)).toBe('Договор — καλημέρα.docx');
  });

  it('prefixes Windows device names, with or without an extension, in any case', () => {
    expect(exhibitFileName('CON', PDF)).toBe('_CON');
    expect(exhibitFileName('con.txt', PDF)).toBe('_con.txt');
    expect(exhibitFileName('Lpt9.tar.gz', PDF)).toBe('_Lpt9.tar.gz');
    expect(exhibitFileName('nul .txt', PDF)).toBe('_nul .txt');
    expect(exhibitFileName('COM1', PDF)).toBe('_COM1');
    // Only the names themselves: a name that begins with one is an ordinary name.
    expect(exhibitFileName('CONTRACT.pdf', PDF)).toBe('CONTRACT.pdf');
    expect(exhibitFileName('COM0.pdf', PDF)).toBe('COM0.pdf');
  });

  it('never makes . or .., nor leading or trailing dots and spaces', () => {
    expect(exhibitFileName('..', PDF)).toBe('file.pdf');
    expect(exhibitFileName('.', PDF)).toBe('file.pdf');
    expect(exhibitFileName(' .hidden. ', PDF)).toBe('hidden');
    expect(exhibitFileName('report.pdf...', PDF)).toBe('report.pdf');
  });

  it('replaces path separators, drive colons, wildcards and control characters with _', () => {
    expect(exhibitFileName('a:b', PDF)).toBe('a_b');
    expect(exhibitFileName('../../etc/passwd', PDF)).toBe('_.._etc_passwd');
    expect(exhibitFileName('C:\\Windows\\x.pdf', PDF)).toBe('C__Windows_x.pdf');
    expect(exhibitFileName('what?*"<>|.pdf', PDF)).toBe('what______.pdf');
    expect(exhibitFileName('tab\there\nnul\u0000del\u007f.pdf', PDF)).toBe('tab_here_nul_del_.pdf');
    expect(exhibitFileName('line\u2028break.pdf', PDF)).toBe('line_break.pdf');
  });

  it('writes hidden and direction-changing characters as [U+XXXX], never dropping them', () => {
    expect(exhibitFileName('\u202Efdp.exe', PDF)).toBe('[U+202E]fdp.exe');
    expect(exhibitFileName('in\u200Bvoice.pdf', PDF)).toBe('in[U+200B]voice.pdf');
    expect(exhibitFileName('\uFEFFbom.pdf', PDF)).toBe('[U+FEFF]bom.pdf');
    expect(exhibitFileName('filler\u3164.pdf', PDF)).toBe('filler[U+3164].pdf');
    expect(exhibitFileName('half\uD800.pdf', PDF)).toBe('half[U+D800].pdf');
    // A joiner inside an emoji sequence draws one emoji: it is seen, so it stays.
    expect(exhibitFileName('👨\u200D👩.jpg', PDF)).toBe('👨\u200D👩.jpg');
  });

  it('writes variation selectors as [U+XXXX] too, so two names that look alike never differ invisibly', () => {
    expect(exhibitFileName('vs\uFE0F\uFE0E\u{E0100}sel.pdf', PDF)).toBe('vs[U+FE0F][U+FE0E][U+E0100]sel.pdf');
    expect(exhibitFileName('\u2764\uFE0F.jpg', PDF)).toBe('\u2764[U+FE0F].jpg');
    expect(exhibitFileName('a\uFE00b\u{E01EF}.pdf', PDF)).toBe('a[U+FE00]b[U+E01EF].pdf');
    // A joiner after a selector joins nothing once the selector is shown: it is shown as well.
    expect(exhibitFileName('🏳\uFE0F\u200D🌈.png', PDF)).toBe('🏳[U+FE0F][U+200D]🌈.png');
    expect(exhibitPath(23, 'vs\uFE0F.pdf', PDF)).toBe('exhibits/023-vs[U+FE0F].pdf');
  });

  it(`cuts a long name to ${EXHIBIT_NAME_MAX_BYTES} UTF-8 bytes, keeping the extension and whole characters`, () => {
    const long = exhibitFileName(`${'a'.repeat(300)}.pdf`, PDF);
    expect(bytes(long)).toBe(EXHIBIT_NAME_MAX_BYTES);
    expect(long).toBe(`${'a'.repeat(EXHIBIT_NAME_MAX_BYTES - 4)}.pdf`);
    // 300 characters of two bytes each, with '..' and ':' in it: the cut falls between characters.
    const mixed = exhibitFileName(`..é:${'é'.repeat(296)}.docx`, PDF);
    expect(bytes(mixed)).toBeLessThanOrEqual(EXHIBIT_NAME_MAX_BYTES);
    expect(mixed).toMatch(/^é_é+\.docx$/);
    expect(mixed).not.toContain('\uFFFD');
    // A [U+XXXX] at the cut is kept whole or left out, never split.
    const tokens = exhibitFileName(`${'\u202E'.repeat(40)}.pdf`, PDF);
    expect(bytes(tokens)).toBeLessThanOrEqual(EXHIBIT_NAME_MAX_BYTES);
    expect(tokens).toMatch(/^(\[U\+202E\])+\.pdf$/);
    // With no extension to keep, the name is simply cut.
    expect(exhibitFileName('b'.repeat(300), PDF)).toBe('b'.repeat(EXHIBIT_NAME_MAX_BYTES));
  });

  it('names a file that came without a name (or with nothing left of it) from its type', () => {
    expect(exhibitFileName(null, 'image/jpeg')).toBe('file.jpg');
    expect(exhibitFileName(undefined, 'audio/ogg; codecs=opus')).toBe('file.ogg');
    expect(exhibitFileName('', PDF)).toBe('file.pdf');
    expect(exhibitFileName('   ', 'application/x-unknown')).toBe('file');
  });
});

describe('exhibitPath', () => {
  it('puts the exhibit number first, three digits at least, so two files of the same name stay apart', () => {
    expect(exhibitPath(7, 'contract.pdf', PDF)).toBe('exhibits/007-contract.pdf');
    expect(exhibitPath(8, 'contract.pdf', PDF)).toBe('exhibits/008-contract.pdf');
    expect(exhibitPath(1234, 'CON', PDF)).toBe('exhibits/1234-_CON');
    expect(exhibitPath(3, null, 'image/png')).toBe('exhibits/003-file.png');
  });
});

describe('exhibitNumberOf', () => {
  it('reads the number back from a path in a bundle, past 999 too; any other file has none', () => {
    for (const exhibit of [1, 7, 999, 1234]) expect(exhibitNumberOf(exhibitPath(exhibit, '001-x.pdf', PDF))).toBe(exhibit);
    expect(exhibitNumberOf('messages.json')).toBeNull();
    expect(exhibitNumberOf('exhibits/7-short.pdf')).toBeNull();
    expect(exhibitNumberOf('other/001-x.pdf')).toBeNull();
  });
});

describe('what a bundle’s messages.json records of each exhibit', () => {
  const header = { firm: 'Ωmega & Co', subject: { name: 'Ελένη' } } as unknown as TExportHeader;
  const message = (exhibits: [number, string | null][]): TExportMessage =>
    ({
      body: 'Καλημέρα — ✓',
      attachments: exhibits.map(([exhibit, sha256]) => ({ exhibit, sha256, state: sha256 ? 'stored' : 'failed' })),
    }) as unknown as TExportMessage;

  /** Exhibit number → the SHA-256 recorded. */
  const hashes = (recorded: TRecordedExhibits | null) => [...recorded!].map(([exhibit, file]) => [exhibit, file.sha256]);
  const feedInPieces = (reader: RecordedExhibitsReader, bytes: Buffer, size: number) => {
    for (let at = 0; at < bytes.length; at += size) reader.feed(bytes.subarray(at, at + size));
  };

  async function exportOf(pages: TExportMessage[][]): Promise<Buffer> {
    const chunks: Buffer[] = [];
    const out = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        chunks.push(Buffer.from(chunk));
        callback();
      },
    });
    await writeJsonExport(header, Readable.from(pages) as AsyncIterable<TExportMessage[]>, out);
    return Buffer.concat(chunks);
  }

  it('reads the JSON export line by line, whatever the pieces it arrives in, a line split across them', async () => {
    const bytes = await exportOf([
      [message([[1, 'A'.repeat(64)]]), message([])],
      [
        message([
          [2, null],
          [3, 'b'.repeat(64)],
        ]),
      ],
    ]);
    for (const size of [1, 7, bytes.length]) {
      const reader = new RecordedExhibitsReader(0); // line by line only, as a bundle too large to parse whole is read
      for (let at = 0; at < bytes.length; at += size) reader.feed(bytes.subarray(at, at + size));
      expect(hashes(reader.finish())).toEqual([
        [1, 'a'.repeat(64)],
        [2, null],
        [3, 'b'.repeat(64)],
      ]);
    }
    const empty = new RecordedExhibitsReader();
    empty.feed(await exportOf([]));
    expect(empty.finish()).toEqual(new Map());
  });

  it('records whether the firm held each file, and where a bundle holds it', async () => {
    const reader = new RecordedExhibitsReader(0);
    reader.feed(
      await exportOf([
        [
          {
            body: '',
            attachments: [
              { exhibit: 1, sha256: 'A'.repeat(64), state: 'stored', destroyed: false, fileName: 'contract.pdf', mimeType: PDF, size: 48 },
              { exhibit: 2, sha256: 'b'.repeat(64), state: 'stored', destroyed: true, fileName: null, mimeType: 'image/jpeg', size: 9 },
              { exhibit: 3, sha256: null, state: 'failed', destroyed: false, fileName: 'x.pdf', mimeType: PDF, size: null },
            ],
          } as unknown as TExportMessage,
        ],
      ]),
    );
    const recorded = reader.finish()!;
    expect([...recorded].map(([exhibit, file]) => [exhibit, file.held, recordedPath(exhibit, file), file.bytes])).toEqual([
      [1, true, 'exhibits/001-contract.pdf', 48],
      [2, false, 'exhibits/002-file.jpg', 9],
      [3, false, 'exhibits/003-x.pdf', null],
    ]);
  });

  it('reads a line of megabytes whole (a message with hundreds of edits), and refuses one past MAX_LINE_BYTES', async () => {
    const edited = (chars: number) =>
      ({
        body: 'edited',
        edits: Array.from({ length: Math.ceil(chars / 4_000) }, (_, i) => ({ body: `${i} ${'e'.repeat(3_998)}`, at: null })),
        attachments: [{ exhibit: 1, sha256: 'c'.repeat(64), state: 'stored' }],
      }) as unknown as TExportMessage;
    const fits = new RecordedExhibitsReader(0);
    feedInPieces(fits, await exportOf([[edited(1_200_000)]]), 64 * 1024);
    expect(hashes(fits.finish())).toEqual([[1, 'c'.repeat(64)]]);
    const past = new RecordedExhibitsReader(0);
    feedInPieces(past, await exportOf([[edited(MAX_LINE_BYTES + 4_000)]]), 64 * 1024);
    expect(past.finish()).toBeNull();
  });

  it('does work in proportion to what it is fed: a long line in small pieces is scanned once, not again for every piece', async () => {
    // Work counted, not timed: every character split into lines or decoded from bytes is counted.
    const bytes = await exportOf([
      [
        {
          body: 'x'.repeat(4 * 1024 * 1024),
          attachments: [{ exhibit: 1, sha256: 'd'.repeat(64), state: 'stored' }],
        } as unknown as TExportMessage,
      ],
    ]);
    const reader = new RecordedExhibitsReader(0);
    const split = vi.spyOn(String.prototype, 'split');
    const decode = vi.spyOn(Buffer.prototype, 'toString');
    let scanned = 0;
    try {
      feedInPieces(reader, bytes, 16 * 1024);
      const contexts: unknown[] = [...split.mock.contexts, ...(decode.mock.contexts as unknown[])];
      for (const text of contexts) scanned += (text as { length: number }).length;
    } finally {
      split.mockRestore();
      decode.mockRestore();
    }
    expect(scanned).toBeLessThanOrEqual(2 * bytes.length);
    expect(hashes(reader.finish())).toEqual([[1, 'd'.repeat(64)]]);
  });

  it('reads a reformatted one whole, and refuses what is not an export of messages', async () => {
    const pretty = new RecordedExhibitsReader();
    pretty.feed(Buffer.from(JSON.stringify(JSON.parse((await exportOf([[message([[4, 'c'.repeat(64)]])]])).toString()), null, 4)));
    expect(hashes(pretty.finish())).toEqual([[4, 'c'.repeat(64)]]);
    for (const text of [
      '{"hello":"world"}',
      'not json',
      JSON.stringify({
        messages: [
          {
            attachments: [
              { exhibit: 1, sha256: null },
              { exhibit: 1, sha256: null },
            ],
          },
        ],
      }),
    ]) {
      const reader = new RecordedExhibitsReader();
      reader.feed(Buffer.from(text));
      expect([text, reader.finish()]).toEqual([text, null]);
    }
  });
});
