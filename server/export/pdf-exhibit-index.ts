import { drawTogether, gap, textBlock } from './pdf-blocks';
import { describeIndexEntry, type TWhen } from './pdf-message-text';
import type { PdfPen } from './pdf-pen';
import { MARGIN, STYLE } from './pdf-styles';
import type { TExportExhibit } from './read-export';

// The PDF export's last pages (server/export/README.md "Evidence exports"): every file of the record, numbered as in
// the messages and in a court bundle, a page of files at a time as they arrive.

/** Draws each batch of exhibits given; the first starts the index on a page of its own, under its title. */
export function createExhibitIndex(pen: PdfPen, when: TWhen): (exhibits: TExportExhibit[]) => void {
  const { doc, width } = pen;
  let indexStarted = false;
  return (exhibits) => {
    if (!indexStarted) {
      indexStarted = true;
      doc.addPage();
      pen.useStyle(STYLE.title);
      doc.text('Exhibits', MARGIN, doc.y, { width });
      doc.moveDown(0.3);
      pen.useStyle(STYLE.note);
      doc.text(
        'Every file in this record, numbered as in the messages above (and as in a court bundle, whose exhibits folder holds each file the firm holds as it was received, under the bundle file named on its line). ' +
          'The SHA-256 identifies the exact bytes: a copy whose hash differs is not the same file.',
        { width },
      );
      doc.moveDown(0.6);
    }
    for (const exhibit of exhibits) drawTogether(pen, [textBlock(describeIndexEntry(exhibit, when), STYLE.exhibit), gap(2)]);
  };
}
