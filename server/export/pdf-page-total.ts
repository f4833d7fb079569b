// "Page 3 of 41" on every page, though a page is written out before the next exists (pdfkit
// without `bufferPages`: the document is never in memory whole). The total is one small drawing (a
// PDF form XObject) that every page's footer refers to and that is written once, at the end, when
// the number is known. Its digits are drawn with the embedded font like all the other text, so a
// reader's viewer shows them and extracts them as text.

/** pdfkit's embedded font, as far as this file uses it (internals, typed here). */
type TEmbeddedFont = {
  id: string;
  ascender: number;
  descender: number;
  ref(): unknown;
  encode(text: string): [string[], unknown[]];
  widthOfString(text: string, size: number): number;
};

const NAME = 'PageTotal';

export type TPageTotal = {
  /** Draws the total at (x, top) on the current page, where a line of text at that size would be. */
  place(x: number, top: number): void;
  /** Writes the total: once, after the last page, before the document ends. */
  finish(total: number): void;
};

/** A total in the document's current font and size, in the given grey (0 black … 1 white). */
export function createPageTotal(doc: PDFKit.PDFDocument, grey: number): TPageTotal {
  const font = (doc as unknown as { _font: TEmbeddedFont })._font;
  const size = (doc as unknown as { _fontSize: number })._fontSize;
  const form = doc.ref({ Type: 'XObject', Subtype: 'Form' }) as unknown as {
    data: Record<string, unknown>;
    end(content: string): void;
  };
  const baselineBelowTop = (font.ascender / 1000) * size;
  return {
    place(x, top) {
      (doc.page.xobjects as Record<string, unknown>)[NAME] = form;
      // pdfkit's pages are drawn with y downwards from the top; the form's text is upright, y up.
      doc.addContent(`q 1 0 0 -1 ${x.toFixed(3)} ${(top + baselineBelowTop).toFixed(3)} cm /${NAME} Do Q`);
    },
    finish(total) {
      const text = String(total);
      const [glyphs] = font.encode(text); // also puts the digits in the embedded subset of the font
      form.data.BBox = [0, (font.descender / 1000) * size, font.widthOfString(text, size), baselineBelowTop];
      form.data.Resources = { Font: { [font.id]: font.ref() } };
      form.end(`BT ${grey} g /${font.id} ${size} Tf 0 0 Td <${glyphs.join('')}> Tj ET`);
    },
  };
}
