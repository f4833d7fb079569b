import { hasRightToLeft } from './bidi-text';
import { drawableText } from './pdf-fonts';
import { describeSubject, oneLine, type TWhen } from './pdf-message-text';
import type { PdfPen } from './pdf-pen';
import { MARGIN, STYLE } from './pdf-styles';
import type { TExportHeader } from './read-export';

// The head of the PDF export's first page (server/export/README.md "Evidence exports"): its title, what the record
// is (firm, subject, period, counts, who exported it and when, the audit trail's head), and how to
// read it.

/** "Chat record: Jane Doe" or "Chat record: case 2024/017", on one line. */
export const titleOf = (header: TExportHeader) =>
  oneLine(header.subject.type === 'client' ? `Chat record: ${header.subject.name}` : `Chat record: case ${header.subject.reference}`);

/** The labelled lines under the title. */
function coverLines(header: TExportHeader, zone: string, when: TWhen): [string, string][] {
  return [
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
}

/** The title, the labelled lines (label in bold, unless the line holds right-to-left text) and the note on reading the record. */
export function drawCover(pen: PdfPen, header: TExportHeader, title: string, zone: string, when: TWhen): void {
  const { doc, width } = pen;
  pen.useStyle(STYLE.title);
  pen.drawText(drawableText(title), MARGIN, width);
  doc.moveDown(0.4);
  for (const [label, value] of coverLines(header, zone, when)) {
    const shown = drawableText(value);
    if (hasRightToLeft(shown)) {
      pen.useStyle(STYLE.body);
      pen.drawText(`${label}: ${shown}`, MARGIN, width);
    } else {
      pen.useStyle({ ...STYLE.body, font: 'bold' });
      doc.text(`${label}: `, MARGIN, doc.y, { continued: true, width });
      doc.font('regular').text(shown);
    }
  }
  doc.moveDown(0.4);
  pen.useStyle(STYLE.note);
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
}
