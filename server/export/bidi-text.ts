import bidiFactory from 'bidi-js';

// Hebrew and Arabic in a PDF (server/export/README.md "Evidence exports"). pdfkit draws the characters of a line in
// the order they are stored, and its font engine (fontkit) shapes and reverses each right-to-left
// word on its own, so a sentence came out with its words backwards. Lines that hold right-to-left
// letters are laid out here instead: wrapped, then put in the order they are read (Unicode's
// bidirectional algorithm, bidi-js), and drawn run by run. Other text keeps pdfkit's own wrapping.

const bidi = bidiFactory();

/** Letters written right to left: Hebrew, Arabic, Syriac, Thaana, N'Ko and the rest of their blocks. */
const RIGHT_TO_LEFT = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFE\u{10800}-\u{10FFF}\u{1E800}-\u{1EFFF}]/u;
/** The first character that belongs to a script (fontkit chooses a run's direction by it). */
const FIRST_OF_A_SCRIPT = /[^\p{Script=Common}\p{Script=Inherited}\p{Script=Unknown}]/u;
/** Scripts fontkit shapes right to left, reversing the run it is given. */
const REVERSED_BY_FONTKIT =
  /[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}\p{Script=Samaritan}\p{Script=Mandaic}]/u;
/** Where a line may break: after spaces, and after the zero-width breaks drawableText adds. */
const BREAK_AFTER = /[ \u200b]/;
const MARK = /\p{M}/u;

/**
 * Shaping features passed with every run drawn here: any list makes pdfkit lay the run out as
 * one piece (otherwise it shapes word by word, reversing each word but not their order).
 */
const AS_ONE_RUN: PDFKit.Mixins.OpenTypeFeatures[] = [];

export function hasRightToLeft(text: string): boolean {
  return RIGHT_TO_LEFT.test(text);
}

/** A piece of a line in reading order: the text as fontkit must be given it to draw it in that order. */
type TRun = { text: string; width: number };
type TLine = { runs: TRun[]; width: number; rightToLeft: boolean };

/**
 * The text's lines, each in the order it is seen from left to right. Paragraphs (split at line
 * breaks) take their direction from their first strong letter; a word wider than the whole line is
 * cut between characters (never between a letter and its marks).
 */
export function layOutBidiLines(doc: PDFKit.PDFDocument, text: string, width: number): TLine[] {
  const lines: TLine[] = [];
  const measure = (piece: string) => doc.widthOfString(piece, { features: AS_ONE_RUN });
  for (const paragraph of text.split('\n')) {
    const levels = bidi.getEmbeddingLevels(paragraph, 'auto');
    const rightToLeft = (levels.paragraphs[0]?.level ?? 0) % 2 === 1;
    for (const [start, end] of wrap(paragraph, width, measure)) {
      lines.push(orderLine(paragraph, levels, start, end, rightToLeft, measure));
    }
  }
  return lines;
}

/** Lines as [start, end) of the paragraph: greedy, breaking after spaces and zero-width breaks. */
function wrap(paragraph: string, width: number, measure: (piece: string) => number): [number, number][] {
  if (paragraph === '') return [[0, 0]];
  const lines: [number, number][] = [];
  let lineStart = 0;
  let lineEnd = 0;
  let lineWidth = 0; // of [lineStart, lineEnd), its spaces included
  for (const [start, end] of piecesOf(paragraph)) {
    const seen = measure(paragraph.slice(start, end).replace(TRAILING_BREAKS, ''));
    if (lineEnd > lineStart && lineWidth + seen > width) {
      lines.push([lineStart, lineEnd]);
      lineStart = lineEnd = start;
      lineWidth = 0;
    }
    if (seen > width) {
      // Wider than a whole line on its own: cut where it overflows, between characters.
      let cut = start;
      for (let i = start; i < end;) {
        const next = nextCharacter(paragraph, i, end);
        if (i > cut && measure(paragraph.slice(cut, next)) > width) {
          lines.push([cut, i]);
          cut = i;
        }
        i = next;
      }
      lineStart = cut;
      lineEnd = end;
      lineWidth = measure(paragraph.slice(cut, end));
      continue;
    }
    lineEnd = end;
    lineWidth += measure(paragraph.slice(start, end));
  }
  lines.push([lineStart, lineEnd]);
  return lines;
}

const TRAILING_BREAKS = /[ \u200b]+$/;

/** The paragraph cut after each run of spaces or zero-width breaks. */
function piecesOf(paragraph: string): [number, number][] {
  const pieces: [number, number][] = [];
  let from = 0;
  for (let i = 0; i < paragraph.length; i++) {
    if (BREAK_AFTER.test(paragraph[i]!) && !BREAK_AFTER.test(paragraph[i + 1] ?? 'x')) {
      pieces.push([from, i + 1]);
      from = i + 1;
    }
  }
  if (from < paragraph.length) pieces.push([from, paragraph.length]);
  return pieces;
}

/** Where the character at `i` ends: after both halves of a pair and any marks on it. */
function nextCharacter(text: string, i: number, end: number): number {
  let next = i + (text.codePointAt(i)! > 0xffff ? 2 : 1);
  while (next < end && MARK.test(String.fromCodePoint(text.codePointAt(next)!))) next += text.codePointAt(next)! > 0xffff ? 2 : 1;
  return next;
}

function orderLine(
  paragraph: string,
  levels: ReturnType<typeof bidi.getEmbeddingLevels>,
  start: number,
  end: number,
  rightToLeft: boolean,
  measure: (piece: string) => number,
): TLine {
  let last = end - 1;
  while (last >= start && /[ \u200b]/.test(paragraph[last]!)) last -= 1; // spaces at the end of a line are not seen
  if (last < start) return { runs: [], width: 0, rightToLeft };
  // bidi-js answers for the whole paragraph, with only this line's part reordered.
  const order = bidi.getReorderedIndices(paragraph, levels, start, last).slice(start, last + 1);
  const mirrored = bidi.getMirroredCharactersMap(paragraph, levels.levels, start, last);
  // Runs of one level whose characters are neighbours in the paragraph.
  const spans: { level: number; from: number; to: number }[] = [];
  let previous = -2;
  for (const index of order) {
    const level = levels.levels[index]!;
    const span = spans[spans.length - 1];
    if (span && span.level === level && Math.abs(index - previous) === 1) {
      span.from = Math.min(span.from, index);
      span.to = Math.max(span.to, index);
    } else spans.push({ level, from: index, to: index });
    previous = index;
  }
  const runs = spans.map(({ level, from, to }) => {
    let logical = '';
    for (let i = from; i <= to; i++) logical += mirrored.get(i) ?? paragraph[i]!;
    // A right-to-left run is reversed by fontkit when its first letter's script is; otherwise by us.
    const first = FIRST_OF_A_SCRIPT.exec(logical)?.[0];
    const text = level % 2 === 0 || (first && REVERSED_BY_FONTKIT.test(first)) ? logical : [...logical].reverse().join('');
    return { text, width: measure(text) };
  });
  return { runs, width: runs.reduce((sum, run) => sum + run.width, 0), rightToLeft };
}

/**
 * Draws lines laid out by layOutBidiLines at the document's cursor, starting a page when the next
 * line would pass the bottom margin (pdfkit does the same for the text it wraps itself).
 */
export function drawBidiLines(doc: PDFKit.PDFDocument, lines: TLine[], x: number, width: number): void {
  const lineHeight = doc.currentLineHeight(true);
  for (const line of lines) {
    if (doc.y + lineHeight > doc.page.maxY()) doc.addPage();
    const y = doc.y;
    let at = line.rightToLeft ? x + width - line.width : x;
    for (const run of line.runs) {
      doc.text(run.text, at, y, { lineBreak: false, features: AS_ONE_RUN });
      at += run.width;
    }
    doc.x = x;
    doc.y = y + lineHeight;
  }
}
