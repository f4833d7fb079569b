import PDFDocument from 'pdfkit';
import { describe, expect, it } from 'vitest';
import { hasRightToLeft, layOutBidiLines } from '../../server/export/bidi-text';
import { loadFonts } from '../../server/export/pdf-fonts';

// Right-to-left lines in the PDF (server/export/README.md "Evidence exports"): wrapped, then put in reading order for
// fontkit, which reverses a right-to-left run it is given whole.

function documentAt(size: number) {
  const doc = new PDFDocument({ size: 'A4', font: null as unknown as string });
  doc.registerFont('regular', loadFonts().regular);
  return doc.font('regular').fontSize(size);
}
const runsOf = (lines: ReturnType<typeof layOutBidiLines>) => lines.map((line) => line.runs.map((run) => run.text));

describe('right-to-left lines', () => {
  it('are found by their letters', () => {
    expect(hasRightToLeft('שלום')).toBe(true);
    expect(hasRightToLeft('مرحبا')).toBe(true);
    expect(hasRightToLeft('Ωμέγα Здравствуйте [U+202E]fdp.exe')).toBe(false);
  });

  it('keep a right-to-left sentence as one run in the order stored (fontkit reverses it), aligned right', () => {
    const lines = layOutBidiLines(documentAt(10), 'שלום עולם, מה שלומך?', 400);
    expect(runsOf(lines)).toEqual([['שלום עולם, מה שלומך?']]);
    expect(lines[0]!.rightToLeft).toBe(true);
  });

  it('order the runs of a mixed line as they are read, numbers left to right', () => {
    expect(runsOf(layOutBidiLines(documentAt(10), 'Invoice 123 for محمد علي today', 400))).toEqual([
      ['Invoice 123 for ', 'محمد علي', ' today'],
    ]);
    const [line] = layOutBidiLines(documentAt(10), 'הסכום 1,250 שקל', 400);
    expect(line!.runs.map((run) => run.text)).toEqual([' שקל', '1,250', 'הסכום ']);
    expect(line!.rightToLeft).toBe(true);
  });

  it('mirror brackets in right-to-left text and reverse neutral runs fontkit would not', () => {
    const [line] = layOutBidiLines(documentAt(10), 'שלום (עולם)', 400);
    // As stored with each bracket mirrored: fontkit reverses the run, so "(" ends up on the left of the word, opening it.
    expect(line!.runs.map((run) => run.text)).toEqual(['שלום )עולם(']);
    // Punctuation between numbers is right to left here, yet holds no Hebrew: fontkit would draw it as given.
    const [neutral] = layOutBidiLines(documentAt(10), 'שלום 12 ?! 34 עולם', 400);
    expect(neutral!.runs.map((run) => run.text)).toEqual([' עולם', '34', ' !? ', '12', 'שלום ']);
  });

  it('wrap a long paragraph within the width, first words on the first line, losing no word', () => {
    const letters = [...'ابتثجحخدذرزسشصضطظعغفقكلمنهوي'];
    const words = Array.from({ length: 60 }, (_, i) => `كلمة${letters[i % letters.length]}`);
    const doc = documentAt(10);
    const lines = layOutBidiLines(doc, words.join(' '), 200);
    expect(lines.length).toBeGreaterThan(3);
    for (const line of lines) expect(line.width).toBeLessThanOrEqual(200);
    expect(
      lines.flatMap((line) =>
        line.runs
          .map((run) => run.text)
          .join('')
          .split(' '),
      ),
    ).toEqual(words);
    const unbroken = 'ש'.repeat(300);
    const cut = layOutBidiLines(doc, unbroken, 200);
    expect(cut.length).toBeGreaterThan(1);
    expect(cut.map((line) => line.runs.map((run) => run.text).join('')).join('')).toBe(unbroken);
  });
});
