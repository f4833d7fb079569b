import { describe, expect, it } from 'vitest';
import { drawableText } from '../../server/export/pdf-fonts';
import { describeBody, describeExhibit, describePhotoCaption, oneLine } from '../../server/export/pdf-message-text';
import type { TExportMessage } from '../../server/export/read-export';
import { showHiddenCharacters } from '../../server/export/visible-text';

// Evidence shows every character it holds (server/export/README.md "Evidence exports"): what cannot be seen, or
// turns the text around it, is written as its code, never dropped and never acting.

const drawsAll = () => true;

describe('hidden characters in an export', () => {
  it('are written as their code: direction controls, zero-width characters, tags, fillers and the rest', () => {
    expect(showHiddenCharacters('\u202Efdp.exe', drawsAll)).toBe('[U+202E]fdp.exe');
    const hidden = [
      0x00ad, 0x034f, 0x061c, 0x115f, 0x1160, 0x17b4, 0x180b, 0x180e, 0x200b, 0x200c, 0x200d, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c,
      0x202d, 0x202e, 0x2028, 0x2029, 0x2060, 0x2066, 0x2067, 0x2068, 0x2069, 0x206f, 0x3164, 0xfeff, 0xffa0, 0xe0001, 0xe0041, 0x7, 0x1b,
      0x7f, 0x9,
    ];
    for (const code of hidden) {
      const shown = `[U+${code.toString(16).toUpperCase().padStart(4, '0')}]`;
      expect(showHiddenCharacters(`a${String.fromCodePoint(code)}b`, drawsAll)).toBe(`a${shown}b`);
    }
    expect(showHiddenCharacters('line one\nline two', drawsAll)).toBe('line one\nline two');
    expect(showHiddenCharacters('half \uD83D pair', drawsAll)).toBe('half [U+D83D] pair');
  });

  it('keeps a variation selector only after an emoji the PDF draws', () => {
    const draws = (code: number) => code === 0x2764 || code === 0xfe0f;
    expect(showHiddenCharacters('\u2764\uFE0F', draws)).toBe('\u2764\uFE0F'); // a heart the font has
    expect(showHiddenCharacters('\u{1F44D}\uFE0F', draws)).toBe('\u{1F44D}[U+FE0F]'); // an emoji written as its code
    expect(showHiddenCharacters('A\uFE00', draws)).toBe('A[U+FE00]');
    expect(showHiddenCharacters('\uFE0F', draws)).toBe('[U+FE0F]');
  });

  it('in the PDF text: shown, then whatever the font cannot draw written too, with the other guarantees kept', () => {
    expect(drawableText('Pay \u200Bme \u202Efdp.exe 👍')).toBe('Pay [U+200B]me [U+202E]fdp.exe [U+1F44D]');
    expect(drawableText('a\tb\r\nc')).toBe('a[U+0009]b\nc');
    expect(drawableText(`Z${'\u0301'.repeat(10)}`)).toBe(`Z${'\u0301'.repeat(3)}[+7 marks]`);
    expect(drawableText('x'.repeat(150))).toBe(`${'x'.repeat(70)}\u200b${'x'.repeat(70)}\u200b${'x'.repeat(10)}`);
    expect(drawableText('Ωμέγα Здравствуйте שלום مرحبا')).toBe('Ωμέγα Здравствуйте שלום مرحبا');
  });
});

describe('names in the transcript', () => {
  const file = (fileName: string | null) =>
    ({
      id: 1,
      exhibit: 4,
      kind: 'document',
      fileName,
      mimeType: 'application/pdf',
      size: 10,
      sha256: 'a'.repeat(64),
      state: 'stored',
      destroyed: false,
    }) as const;

  it('write a line break in a stored name as its code, so the name stays on its line', () => {
    expect(describeExhibit(file('Invoice\nPAID IN FULL.pdf'))).toMatch(/^Exhibit 4: Invoice\[U\+000A\]PAID IN FULL\.pdf · bundle file /);
    expect(describePhotoCaption(file('photo\r\n.jpg'))).toMatch(/^Exhibit 4 · photo\[U\+000D\]\[U\+000A\]\.jpg · /);
    expect(oneLine('a\nb')).toBe('a[U+000A]b');
  });

  it('say "(no name)" for a name of nothing but spaces, and name a file sent without one by its kind', () => {
    expect(describeExhibit(file('   '))).toMatch(/^Exhibit 4: \(no name\) · bundle file exhibits\/004-file\.pdf · /);
    expect(describeExhibit(file(null))).toMatch(/^Exhibit 4: document, no file name · /);
  });

  it('keep the line breaks of a message’s text: they are the sender’s', () => {
    expect(describeBody({ kind: 'text', direction: 'inbound', body: 'line one\nline two' } as unknown as TExportMessage)).toBe(
      'line one\nline two',
    );
  });
});
