import { drawableText } from './pdf-fonts';
import { oneLine, type TWhen } from './pdf-message-text';
import { createPageTotal, type TPageTotal } from './pdf-page-total';
import type { PdfPen } from './pdf-pen';
import { GREY_LEVEL, MARGIN, STYLE } from './pdf-styles';
import type { TExportHeader } from './read-export';

// Every page's footer in the PDF export (server/export/README.md "Evidence exports"): firm, title, who exported and
// when, and "Page N of M", whose M is written once at the end (pdf-page-total.ts).

export type TFooter = {
  /** Draws the footer of the page just begun, then puts the cursor and style back as they were. */
  draw: () => void;
  /** The total, written once after the last page. */
  pageTotal: TPageTotal;
};

/** The footer; the page total takes the footer's font and size, so the pen is set to its style here. */
export function createFooter(pen: PdfPen, header: TExportHeader, title: string, when: TWhen): TFooter {
  const { doc, width } = pen;
  pen.useStyle(STYLE.footer);
  const pageTotal = createPageTotal(doc, GREY_LEVEL);
  const footerText = drawableText(
    `${oneLine(header.firm)} · ${[...title].length > 80 ? `${[...title].slice(0, 79).join('')}…` : title} · exported ${when(header.exportedAt)} by ${oneLine(header.exportedBy.name)}`,
  );
  const draw = () => {
    pen.pageNumber += 1;
    const { x, y } = doc;
    const drawing = pen.style;
    pen.pageColor = null;
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0; // writing below the margin must not start another page
    pen.useStyle(STYLE.footer);
    const top = doc.page.height - MARGIN - 8;
    doc.y = top;
    pen.drawText(footerText, MARGIN, width, true);
    const label = `Page ${pen.pageNumber} of `;
    doc.text(label, MARGIN, top + 10, { lineBreak: false });
    pageTotal.place(MARGIN + doc.widthOfString(label), top + 10);
    doc.page.margins.bottom = bottom;
    pen.useStyle(drawing); // a new page starts with the default colour: what was being drawn goes on as it was
    doc.x = x;
    doc.y = y;
  };
  return { draw, pageTotal };
}
