// The PDF export's page and type (server/export/README.md "Evidence exports"): margins, greys and the text styles
// render-pdf.ts and its parts draw with.

export const MARGIN = 50;
export const GREY = '#555555';
export const GREY_LEVEL = 0x55 / 0xff;
export const QUOTE_RULE = '#bbbbbb';
/** A missing photo's box: a pale fill and a dashed frame, so it reads as a gap in the record, not as a picture. */
export const PLACEHOLDER_FILL = '#f2f2f2';
export const PLACEHOLDER_FRAME = '#888888';
export const PLACEHOLDER_PADDING = 12;
/** About a sixth of a page: clearly where a photo would be, without the room of a drawn one. */
export const PLACEHOLDER_MIN_HEIGHT = 90;

export type TStyle = { font: 'regular' | 'bold'; size: number; color: string; indent?: number };
export const STYLE = {
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
