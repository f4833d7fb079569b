import { drawBidiLines, hasRightToLeft, layOutBidiLines } from './bidi-text';
import { MARGIN, STYLE, type TStyle } from './pdf-styles';

// What every part of the PDF export draws with: the document, the style in use and the page
// count. The fill colour is set only when it changes on a page, which keeps each page's content
// small; anything that sets it otherwise (a filled box, a new page) forgets it with `pageColor = null`.

/** Lines of right-to-left text laid out ahead of drawing (bidi-text.ts). */
export type TBidiLines = ReturnType<typeof layOutBidiLines>;

export class PdfPen {
  /** The style being drawn in: a footer drawn mid-message puts it back after. */
  style: TStyle = STYLE.body;
  /** The fill colour this page's content last set. */
  pageColor: string | null = null;
  /** Pages begun so far (the footer counts them). */
  pageNumber = 0;
  /** The text's width between the margins. */
  readonly width: number;

  constructor(readonly doc: PDFKit.PDFDocument) {
    this.width = doc.page.width - 2 * MARGIN;
  }

  /** The font and size only: enough to measure. */
  useFont(next: TStyle): PDFKit.PDFDocument {
    return this.doc.font(next.font).fontSize(next.size);
  }

  useStyle(next: TStyle): void {
    this.style = next;
    this.useFont(next);
    if (this.pageColor !== next.color) this.doc.fillColor((this.pageColor = next.color));
  }

  /** Text at the cursor, wrapped to `width`; right-to-left lines in reading order (bidi-text.ts). */
  drawText(text: string, x: number, lineWidth: number, oneLine = false, lines?: TBidiLines): void {
    const doc = this.doc;
    if (lines || hasRightToLeft(text)) {
      const laidOut = lines ?? layOutBidiLines(doc, text, lineWidth);
      drawBidiLines(doc, oneLine ? laidOut.slice(0, 1) : laidOut, x, lineWidth);
    } else if (oneLine) doc.text(text, x, doc.y, { width: lineWidth, lineBreak: false });
    else doc.text(text, x, doc.y, { width: lineWidth });
  }
}
