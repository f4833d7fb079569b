import { hasRightToLeft, layOutBidiLines } from './bidi-text';
import { drawableText } from './pdf-fonts';
import type { PdfPen, TBidiLines } from './pdf-pen';
import {
  MARGIN,
  PLACEHOLDER_FILL,
  PLACEHOLDER_FRAME,
  PLACEHOLDER_MIN_HEIGHT,
  PLACEHOLDER_PADDING,
  QUOTE_RULE,
  STYLE,
  type TStyle,
} from './pdf-styles';

// A message in the PDF export is a list of blocks, measured before any is drawn, so the message
// is kept on one page (server/export/README.md "Evidence exports").

/** Something drawn as part of a message, measured before anything is drawn (so the message is kept on one page). */
export type TBlock =
  | { kind: 'text'; text: string; style: TStyle; rule?: boolean; lines?: TBidiLines }
  | { kind: 'photo'; jpeg: Uint8Array; width: number; height: number }
  | { kind: 'placeholder'; title: string; text: string; height?: number }
  | { kind: 'gap'; height: number };

type TPlaceholder = Extract<TBlock, { kind: 'placeholder' }>;

export const textBlock = (value: string, textStyle: TStyle, rule = false): TBlock => ({
  kind: 'text',
  text: drawableText(value),
  style: textStyle,
  rule,
});
export const gap = (height: number): TBlock => ({ kind: 'gap', height });

/** The box's height: its two lines of words, padded, and never less than PLACEHOLDER_MIN_HEIGHT. */
function measurePlaceholder(pen: PdfPen, block: TPlaceholder): number {
  const { doc } = pen;
  const inner = pen.width - 2 * PLACEHOLDER_PADDING;
  pen.useFont(STYLE.caption);
  let words = doc.heightOfString(block.title, { width: inner });
  pen.useFont(STYLE.exhibit);
  words += doc.heightOfString(block.text, { width: inner });
  return (block.height = Math.max(PLACEHOLDER_MIN_HEIGHT, words + 2 * PLACEHOLDER_PADDING));
}

/** Where a photo the firm does not hold would have been: a framed box that says so, with the exhibit's line. */
function drawPlaceholder(pen: PdfPen, block: TPlaceholder): void {
  const { doc, width } = pen;
  const height = block.height ?? measurePlaceholder(pen, block);
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
  pen.pageColor = null; // the fill above changed it
  const inner = width - 2 * PLACEHOLDER_PADDING;
  doc.y = top + PLACEHOLDER_PADDING;
  pen.useStyle(STYLE.caption);
  pen.drawText(block.title, MARGIN + PLACEHOLDER_PADDING, inner);
  pen.useStyle(STYLE.exhibit);
  pen.drawText(block.text, MARGIN + PLACEHOLDER_PADDING, inner);
  doc.x = MARGIN;
  doc.y = top + height;
}

function measure(pen: PdfPen, block: TBlock): number {
  const { doc } = pen;
  if (block.kind === 'gap') return block.height;
  if (block.kind === 'photo') return block.height;
  if (block.kind === 'placeholder') return measurePlaceholder(pen, block);
  pen.useFont(block.style);
  const lineWidth = pen.width - (block.style.indent ?? 0);
  if (hasRightToLeft(block.text)) {
    block.lines = layOutBidiLines(doc, block.text, lineWidth);
    return block.lines.length * doc.currentLineHeight(true);
  }
  // One line that fits is one line high: cheaper than pdfkit's wrapping (most bodies are short).
  if (!block.text.includes('\n') && doc.widthOfString(block.text) <= lineWidth) return doc.currentLineHeight(true);
  return doc.heightOfString(block.text, { width: lineWidth });
}

/** A text block at the cursor, with the rule beside a quote (drawn only when the text stayed on its page). */
function drawTextBlock(pen: PdfPen, block: Extract<TBlock, { kind: 'text' }>): void {
  const { doc } = pen;
  pen.useStyle(block.style);
  const indent = block.style.indent ?? 0;
  const [top, page] = [doc.y, pen.pageNumber];
  pen.drawText(block.text, MARGIN + indent, pen.width - indent, false, block.lines);
  if (block.rule && page === pen.pageNumber) {
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

/**
 * Draws the blocks on one page: a new page first when they do not fit in what is left of this one
 * but would fit on an empty one (server/export/README.md "Evidence exports": a message is never split across pages
 * unless it is longer than a page). Measuring costs about as much layout as drawing, but pdfkit
 * keeps what it laid out for the drawing, so it adds about a fifth to the time of an export.
 */
export function drawTogether(pen: PdfPen, blocks: TBlock[]): void {
  const { doc } = pen;
  const room = doc.page.maxY() - 0.5 - doc.y;
  // The space after the last line may fall below the margin.
  const last = blocks.findLastIndex((block) => block.kind !== 'gap');
  const height = blocks.slice(0, last + 1).reduce((sum, block) => sum + measure(pen, block), 0);
  const pageRoom = doc.page.maxY() - doc.page.margins.top;
  if (height > room && height <= pageRoom && doc.y > doc.page.margins.top + 0.5) doc.addPage();
  for (const block of blocks) {
    if (block.kind === 'gap') doc.y += block.height;
    else if (block.kind === 'placeholder') drawPlaceholder(pen, block);
    else if (block.kind === 'photo') {
      if (doc.y + block.height > doc.page.maxY()) doc.addPage();
      doc.image(Buffer.from(block.jpeg.buffer, block.jpeg.byteOffset, block.jpeg.byteLength), MARGIN, doc.y, {
        width: block.width,
        height: block.height,
      });
      doc.x = MARGIN;
      doc.y += block.height;
    } else drawTextBlock(pen, block);
  }
}
