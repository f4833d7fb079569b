import { once } from 'node:events';
import type { Writable } from 'node:stream';
import PDFDocument from 'pdfkit';
import { drawBidiLines, hasRightToLeft, layOutBidiLines } from './bidi-text';
import { formatFirmTime } from './firm-time';
import { drawableText, loadFonts } from './pdf-fonts';
import {
  describeBody,
  describeButtons,
  describeExhibit,
  describeHeading,
  describeIndexEntry,
  describePhotoCaption,
  describePhotoDetail,
  describeQuote,
  describeRecord,
  describeSubject,
  isMissingPhoto,
  oneLine,
  type TWhen,
} from './pdf-message-text';
import { createPageTotal } from './pdf-page-total';
import type { TPdfPart, TPdfPhoto } from './pdf-parts';
import type { TExportExhibit, TExportHeader, TExportMessage } from './read-export';

const MARGIN = 50;
const GREY = '#555555';
const GREY_LEVEL = 0x55 / 0xff;
const QUOTE_RULE = '#bbbbbb';
/** A missing photo's box: a pale fill and a dashed frame, so it reads as a gap in the record, not as a picture. */
const PLACEHOLDER_FILL = '#f2f2f2';
const PLACEHOLDER_FRAME = '#888888';
const PLACEHOLDER_PADDING = 12;
/** About a sixth of a page: clearly where a photo would be, without the room of a drawn one. */
const PLACEHOLDER_MIN_HEIGHT = 90;
/** When the header names no zone (a header made by hand): the firm's default. */
const DEFAULT_ZONE = 'Europe/London';

type TStyle = { font: 'regular' | 'bold'; size: number; color: string; indent?: number };
const STYLE = {
  title: { font: 'bold', size: 16, color: 'black' },
  heading: { font: 'bold', size: 9.5, color: 'black' },
  quote: { font: 'regular', size: 8.5, color: GREY, indent: 10 },
  body: { font: 'regular', size: 10, color: 'black' },
  buttons: { font: 'regular', size: 9.5, color: 'black' },
  caption: { font: 'bold', size: 8.5, color: 'black' },
  exhibit: { font: 'regular', size: 8.5, color: 'black' },
  record: { font: 'regular', size: 7.5, color: GREY },
  note: { font: 'regular', size: 8, color: GREY },
  footer: { font: 'regular', size: 7.5, color: GREY },
} satisfies Record<string, TStyle>;

/** Something drawn as part of a message, measured before anything is drawn (so the message is kept on one page). */
type TBlock =
  | { kind: 'text'; text: string; style: TStyle; rule?: boolean; lines?: ReturnType<typeof layOutBidiLines> }
  | { kind: 'photo'; jpeg: Uint8Array; width: number; height: number }
  | { kind: 'placeholder'; title: string; text: string; height?: number }
  | { kind: 'gap'; height: number };

/**
 * pdfkit keeps the glyph layout of every distinct word it has drawn, for the life of the document:
 * ids, times and hashes are all distinct, so a 10,000-message export kept ~100 MB of them. Laying
 * words out afresh is 4× slower, so the cache stays and is emptied once per part.
 * (`_fontFamilies` and `layoutCache` are pdfkit internals: if they change, memory grows as before.)
 */
function forgetWordLayouts(doc: PDFKit.PDFDocument): void {
  const families = (doc as unknown as { _fontFamilies?: Record<string, { layoutCache?: object }> })._fontFamilies ?? {};
  for (const font of Object.values(families)) if (font.layoutCache) font.layoutCache = Object.create(null) as object;
}

/**
 * The PDF export: a header naming firm, subject, period, who exported and when, then every message
 * with its photos, files and record lines, then an index of the exhibits. Pages are written out as
 * they fill (pdfkit without `bufferPages`), so the document never sits in memory whole; "page N of
 * M" comes from pdf-page-total.ts. CPU-bound: the server runs it in a worker (write-pdf-export.ts).
 */
export async function renderPdf(header: TExportHeader, parts: AsyncIterable<TPdfPart>, out: Writable): Promise<void> {
  const { regular, bold } = loadFonts();
  const zone = header.timeZone ?? DEFAULT_ZONE;
  const when: TWhen = (iso) => formatFirmTime(iso, zone);
  const title = oneLine(
    header.subject.type === 'client' ? `Chat record: ${header.subject.name}` : `Chat record: case ${header.subject.reference}`,
  );
  const doc = new PDFDocument({
    size: 'A4',
    margins: { top: MARGIN, bottom: MARGIN + 24, left: MARGIN, right: MARGIN },
    bufferPages: false,
    info: {
      Title: title,
      Author: header.firm,
      Subject: describeSubject(header.subject),
      Creator: 'Firm Chat',
      CreationDate: new Date(header.exportedAt),
    },
    // No built-in default font: a Buffer given here would be parsed again on every later font() call.
    font: null as unknown as string,
  });
  doc.registerFont('regular', regular);
  doc.registerFont('bold', bold);
  doc.pipe(out, { end: false });
  const ended = once(doc, 'end');
  const width = doc.page.width - 2 * MARGIN;

  let style: TStyle = STYLE.body;
  let pageColor: string | null = null; // the fill colour this page's content last set
  /** The font and size only: enough to measure. */
  const useFont = (next: TStyle) => doc.font(next.font).fontSize(next.size);
  const useStyle = (next: TStyle) => {
    style = next;
    useFont(next);
    if (pageColor !== next.color) doc.fillColor((pageColor = next.color));
  };
  useStyle(STYLE.footer);
  const pageTotal = createPageTotal(doc, GREY_LEVEL);

  let pageNumber = 0;
  const footerText = drawableText(
    `${oneLine(header.firm)} · ${[...title].length > 80 ? `${[...title].slice(0, 79).join('')}…` : title} · exported ${when(header.exportedAt)} by ${oneLine(header.exportedBy.name)}`,
  );
  const footer = () => {
    pageNumber += 1;
    const { x, y } = doc;
    const drawing = style;
    pageColor = null;
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0; // writing below the margin must not start another page
    useStyle(STYLE.footer);
    const top = doc.page.height - MARGIN - 8;
    doc.y = top;
    drawText(footerText, MARGIN, width, true);
    const label = `Page ${pageNumber} of `;
    doc.text(label, MARGIN, top + 10, { lineBreak: false });
    pageTotal.place(MARGIN + doc.widthOfString(label), top + 10);
    doc.page.margins.bottom = bottom;
    useStyle(drawing); // a new page starts with the default colour: what was being drawn goes on as it was
    doc.x = x;
    doc.y = y;
  };

  /** Text at the cursor, wrapped to `width`; right-to-left lines in reading order (bidi-text.ts). */
  function drawText(text: string, x: number, lineWidth: number, oneLine = false, lines?: ReturnType<typeof layOutBidiLines>): void {
    if (lines || hasRightToLeft(text)) {
      const laidOut = lines ?? layOutBidiLines(doc, text, lineWidth);
      drawBidiLines(doc, oneLine ? laidOut.slice(0, 1) : laidOut, x, lineWidth);
    } else if (oneLine) doc.text(text, x, doc.y, { width: lineWidth, lineBreak: false });
    else doc.text(text, x, doc.y, { width: lineWidth });
  }

  /** The box's height: its two lines of words, padded, and never less than PLACEHOLDER_MIN_HEIGHT. */
  function measurePlaceholder(block: Extract<TBlock, { kind: 'placeholder' }>): number {
    const inner = width - 2 * PLACEHOLDER_PADDING;
    useFont(STYLE.caption);
    let words = doc.heightOfString(block.title, { width: inner });
    useFont(STYLE.exhibit);
    words += doc.heightOfString(block.text, { width: inner });
    return (block.height = Math.max(PLACEHOLDER_MIN_HEIGHT, words + 2 * PLACEHOLDER_PADDING));
  }

  /** Where a photo the firm does not hold would have been: a framed box that says so, with the exhibit's line. */
  function drawPlaceholder(block: Extract<TBlock, { kind: 'placeholder' }>): void {
    const height = block.height ?? measurePlaceholder(block);
    if (doc.y + height > doc.page.maxY()) doc.addPage();
    const top = doc.y;
    doc
      .save()
      .rect(MARGIN, top, width, height)
      .fillColor(PLACEHOLDER_FILL)
      .fill()
      .rect(MARGIN, top, width, height)
      .dash(4, { space: 3 })
      .lineWidth(1)
      .strokeColor(PLACEHOLDER_FRAME)
      .stroke()
      .undash()
      .restore();
    pageColor = null; // the fill above changed it
    const inner = width - 2 * PLACEHOLDER_PADDING;
    doc.y = top + PLACEHOLDER_PADDING;
    useStyle(STYLE.caption);
    drawText(block.title, MARGIN + PLACEHOLDER_PADDING, inner);
    useStyle(STYLE.exhibit);
    drawText(block.text, MARGIN + PLACEHOLDER_PADDING, inner);
    doc.x = MARGIN;
    doc.y = top + height;
  }

  function measure(block: TBlock): number {
    if (block.kind === 'gap') return block.height;
    if (block.kind === 'photo') return block.height;
    if (block.kind === 'placeholder') return measurePlaceholder(block);
    useFont(block.style);
    const lineWidth = width - (block.style.indent ?? 0);
    if (hasRightToLeft(block.text)) {
      block.lines = layOutBidiLines(doc, block.text, lineWidth);
      return block.lines.length * doc.currentLineHeight(true);
    }
    // One line that fits is one line high: cheaper than pdfkit's wrapping (most bodies are short).
    if (!block.text.includes('\n') && doc.widthOfString(block.text) <= lineWidth) return doc.currentLineHeight(true);
    return doc.heightOfString(block.text, { width: lineWidth });
  }

  /**
   * Draws the blocks on one page: a new page first when they do not fit in what is left of this one
   * but would fit on an empty one (README "Evidence exports": a message is never split across pages
   * unless it is longer than a page). Measuring costs about as much layout as drawing, but pdfkit
   * keeps what it laid out for the drawing, so it adds about a fifth to the time of an export.
   */
  function drawTogether(blocks: TBlock[]): void {
    const room = doc.page.maxY() - 0.5 - doc.y;
    // The space after the last line may fall below the margin.
    const last = blocks.findLastIndex((block) => block.kind !== 'gap');
    const height = blocks.slice(0, last + 1).reduce((sum, block) => sum + measure(block), 0);
    const pageRoom = doc.page.maxY() - doc.page.margins.top;
    if (height > room && height <= pageRoom && doc.y > doc.page.margins.top + 0.5) doc.addPage();
    for (const block of blocks) {
      if (block.kind === 'gap') doc.y += block.height;
      else if (block.kind === 'placeholder') drawPlaceholder(block);
      else if (block.kind === 'photo') {
        if (doc.y + block.height > doc.page.maxY()) doc.addPage();
        doc.image(Buffer.from(block.jpeg.buffer, block.jpeg.byteOffset, block.jpeg.byteLength), MARGIN, doc.y, {
          width: block.width,
          height: block.height,
        });
        doc.x = MARGIN;
        doc.y += block.height;
      } else {
        useStyle(block.style);
        const indent = block.style.indent ?? 0;
        const [top, page] = [doc.y, pageNumber];
        drawText(block.text, MARGIN + indent, width - indent, false, block.lines);
        if (block.rule && page === pageNumber) {
          doc
            .save()
            .moveTo(MARGIN + 3, top)
            .lineTo(MARGIN + 3, doc.y)
            .lineWidth(1.5)
            .strokeColor(QUOTE_RULE)
            .stroke()
            .restore();
        }
      }
    }
  }

  const textBlock = (value: string, textStyle: TStyle, rule = false): TBlock => ({
    kind: 'text',
    text: drawableText(value),
    style: textStyle,
    rule,
  });
  const gap = (height: number): TBlock => ({ kind: 'gap', height });

  /** A photo fitted to the text's width and at most a third of the page high, never enlarged past its pixels. */
  function photoBlock(photo: Extract<TPdfPhoto, { jpeg: Uint8Array }>): TBlock {
    const maxHeight = (doc.page.maxY() - doc.page.margins.top) / 3;
    const scale = Math.min(width / photo.width, maxHeight / photo.height, 1);
    return { kind: 'photo', jpeg: photo.jpeg, width: photo.width * scale, height: photo.height * scale };
  }

  /** A client's export spans their cases: each message names the one it is filed on. */
  const withCase = header.subject.type === 'client';

  function messageBlocks(message: TExportMessage, photos: Map<number, TPdfPhoto>): TBlock[] {
    const blocks: TBlock[] = [textBlock(describeHeading(message, when, withCase), STYLE.heading)];
    const quote = describeQuote(message, when);
    if (quote) blocks.push(gap(1), textBlock(quote, STYLE.quote, true), gap(1));
    blocks.push(textBlock(describeBody(message), STYLE.body));
    const buttons = describeButtons(message);
    if (buttons) blocks.push(textBlock(buttons, STYLE.buttons));
    const listed: TBlock[] = [];
    for (const file of message.attachments) {
      const photo = photos.get(file.id);
      if (photo && 'jpeg' in photo) {
        blocks.push(
          gap(3),
          photoBlock(photo),
          gap(2),
          textBlock(describePhotoCaption(file), STYLE.caption),
          textBlock(describePhotoDetail(file), STYLE.record),
        );
      } else if (isMissingPhoto(file)) {
        blocks.push(gap(3), {
          kind: 'placeholder',
          title: drawableText(`Photo not held by the firm (exhibit ${file.exhibit})`),
          text: drawableText(describeExhibit(file)),
        });
      } else listed.push(textBlock(describeExhibit(file, photo && 'notDrawn' in photo ? photo.notDrawn : undefined), STYLE.exhibit));
    }
    if (listed.length) blocks.push(gap(2), ...listed);
    blocks.push(textBlock(describeRecord(message, when).join('\n'), STYLE.record));
    blocks.push(gap(useFont(STYLE.record).currentLineHeight(true) * 0.7));
    return blocks;
  }

  let indexStarted = false;
  function drawIndex(exhibits: TExportExhibit[]): void {
    if (!indexStarted) {
      indexStarted = true;
      doc.addPage();
      useStyle(STYLE.title);
      doc.text('Exhibits', MARGIN, doc.y, { width });
      doc.moveDown(0.3);
      useStyle(STYLE.note);
      doc.text(
        'Every file in this record, numbered as in the messages above (and as in a court bundle, whose exhibits folder holds each file the firm holds as it was received, under the bundle file named on its line). ' +
          'The SHA-256 identifies the exact bytes: a copy whose hash differs is not the same file.',
        { width },
      );
      doc.moveDown(0.6);
    }
    for (const exhibit of exhibits) drawTogether([textBlock(describeIndexEntry(exhibit, when), STYLE.exhibit), gap(2)]);
  }

  footer();
  doc.on('pageAdded', footer);

  useStyle(STYLE.title);
  drawText(drawableText(title), MARGIN, width);
  doc.moveDown(0.4);
  const headerLines: [string, string][] = [
    ['Firm', header.firm],
    ['Subject', describeSubject(header.subject)],
    ['Period', header.period ? `${when(header.period.from)} to ${when(header.period.to)}` : 'no messages'],
    [
      'Messages',
      header.notOnCase
        ? `${header.count}: those filed on this case. ${header.notOnCase} other chat message${header.notOnCase === 1 ? '' : 's'} with ${header.subject.clientName} ${header.notOnCase === 1 ? 'is' : 'are'} not filed on it and not in this record (export the client's chat for every message).`
        : String(header.count),
    ],
    ...(header.internalNotes
      ? [
          [
            'Internal notes',
            `${header.internalNotes}, among the messages and marked as such: the firm's own, never sent to the client`,
          ] as [string, string],
        ]
      : []),
    ['Exported by', oneLine(`${header.exportedBy.name} (${header.exportedBy.email})`)],
    ['Exported at', when(header.exportedAt)],
    ['Time zone', `${zone}: every time is the firm's, with the same moment in UTC in brackets`],
    ['Audit trail head', header.auditHead.id === null ? 'empty' : `event #${header.auditHead.id}, SHA-256 ${header.auditHead.hash}`],
  ];
  for (const [label, value] of headerLines) {
    const shown = drawableText(value);
    if (hasRightToLeft(shown)) {
      useStyle(STYLE.body);
      drawText(`${label}: ${shown}`, MARGIN, width);
    } else {
      useStyle({ ...STYLE.body, font: 'bold' });
      doc.text(`${label}: `, MARGIN, doc.y, { continued: true, width });
      doc.font('regular').text(shown);
    }
  }
  doc.moveDown(0.4);
  useStyle(STYLE.note);
  doc.text(
    `Times are the firm's clock (${zone}), such as "${when(header.exportedAt)}": the same moment in UTC follows in brackets, with its date when that is another day. ` +
      '"Provider time" is the messaging provider\'s timestamp; "stored" is when this system recorded the message. ' +
      'A reply quotes the message it answers; a resent copy names the record of the message it repeats. ' +
      'Files are numbered exhibits: photos are drawn (scaled down), other files are listed with their size, SHA-256 and their file in a court bundle, and all are indexed at the end; ' +
      'a file the firm does not hold says why, and a photo it does not hold is a framed box where the photo would be. ' +
      'Characters that cannot be seen or that change the direction of the text around them, and characters this font cannot draw (emoji; Chinese, Japanese and Korean script; tabs), are written as their Unicode code, such as [U+202E] or [U+1F44D] for a thumbs-up; ' +
      'long runs without spaces wrap at the margin. The JSON export of the same record holds the exact text. ' +
      "The file's SHA-256 is recorded in the firm's audit trail under this export.",
    MARGIN,
    doc.y,
    { width },
  );
  doc.moveDown(0.8);

  for await (const part of parts) {
    forgetWordLayouts(doc);
    if (part.type === 'messages') {
      const photos = new Map(part.photos.map((photo) => [photo.attachmentId, photo]));
      for (const message of part.messages) drawTogether(messageBlocks(message, photos));
    } else drawIndex(part.exhibits);
  }
  useStyle(STYLE.footer);
  pageTotal.finish(pageNumber);
  doc.end();
  await ended;
}
