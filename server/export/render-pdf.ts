import { once } from 'node:events';
import type { Writable } from 'node:stream';
import PDFDocument from 'pdfkit';
import { formatFirmTime } from './firm-time';
import { drawCover, titleOf } from './pdf-cover';
import { drawTogether } from './pdf-blocks';
import { createExhibitIndex } from './pdf-exhibit-index';
import { loadFonts } from './pdf-fonts';
import { createFooter } from './pdf-footer';
import { messageBlocks } from './pdf-message-blocks';
import { describeSubject, type TWhen } from './pdf-message-text';
import type { TPdfPart } from './pdf-parts';
import { PdfPen } from './pdf-pen';
import { MARGIN, STYLE } from './pdf-styles';
import type { TExportHeader } from './read-export';

/** When the header names no zone (a header made by hand): the firm's default. */
const DEFAULT_ZONE = 'Europe/London';

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
 * The PDF export: a header naming firm, subject, period, who exported and when (pdf-cover.ts), then
 * every message with its photos, files and record lines (pdf-message-blocks.ts), then an index of
 * the exhibits (pdf-exhibit-index.ts), a footer on every page (pdf-footer.ts). Pages are written out
 * as they fill (pdfkit without `bufferPages`), so the document never sits in memory whole; "page N
 * of M" comes from pdf-page-total.ts. CPU-bound: the server runs it in a worker (write-pdf-export.ts).
 */
export async function renderPdf(header: TExportHeader, parts: AsyncIterable<TPdfPart>, out: Writable): Promise<void> {
  const { regular, bold } = loadFonts();
  const zone = header.timeZone ?? DEFAULT_ZONE;
  const when: TWhen = (iso) => formatFirmTime(iso, zone);
  const title = titleOf(header);
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
  const pen = new PdfPen(doc);
  const footer = createFooter(pen, header, title, when);
  footer.draw();
  doc.on('pageAdded', footer.draw);

  drawCover(pen, header, title, zone, when);
  /** A client's export spans their cases: each message names the one it is filed on. */
  const withCase = header.subject.type === 'client';
  const drawIndex = createExhibitIndex(pen, when);
  for await (const part of parts) {
    forgetWordLayouts(doc);
    if (part.type === 'messages') {
      const photos = new Map(part.photos.map((photo) => [photo.attachmentId, photo]));
      for (const message of part.messages) drawTogether(pen, messageBlocks(pen, message, photos, when, withCase));
    } else drawIndex(part.exhibits);
  }
  pen.useStyle(STYLE.footer);
  footer.pageTotal.finish(pen.pageNumber);
  doc.end();
  await ended;
}
