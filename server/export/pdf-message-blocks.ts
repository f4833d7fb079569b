import { gap, textBlock, type TBlock } from './pdf-blocks';
import { drawableText } from './pdf-fonts';
import {
  describeBody,
  describeButtons,
  describeExhibit,
  describeHeading,
  describePhotoCaption,
  describePhotoDetail,
  describeQuote,
  describeRecord,
  isMissingPhoto,
  type TWhen,
} from './pdf-message-text';
import type { TPdfPhoto } from './pdf-parts';
import type { PdfPen } from './pdf-pen';
import { STYLE } from './pdf-styles';
import type { TExportMessage } from './read-export';

// One message of the PDF export as blocks (server/export/README.md "Evidence exports"): its heading, the message it
// answers, its text and buttons, its photos drawn (or a box where a photo not held would be), its
// other files listed as exhibits, and its record lines.

/** A photo fitted to the text's width and at most a third of the page high, never enlarged past its pixels. */
function photoBlock(pen: PdfPen, photo: Extract<TPdfPhoto, { jpeg: Uint8Array }>): TBlock {
  const { doc, width } = pen;
  const maxHeight = (doc.page.maxY() - doc.page.margins.top) / 3;
  const scale = Math.min(width / photo.width, maxHeight / photo.height, 1);
  return { kind: 'photo', jpeg: photo.jpeg, width: photo.width * scale, height: photo.height * scale };
}

/** The message's blocks; `withCase` (a client's export spans their cases) names the case it is filed on. */
export function messageBlocks(
  pen: PdfPen,
  message: TExportMessage,
  photos: Map<number, TPdfPhoto>,
  when: TWhen,
  withCase: boolean,
): TBlock[] {
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
        photoBlock(pen, photo),
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
  blocks.push(gap(pen.useFont(STYLE.record).currentLineHeight(true) * 0.7));
  return blocks;
}
