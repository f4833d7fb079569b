import type { TExportExhibit, TExportMessage } from './read-export';

// What the server's thread hands the PDF worker, one part at a time (write-pdf-export.ts).

/** A photo scaled for the page (pdf-photos.ts): JPEG bytes and their size in pixels; or why it is listed as a file instead. */
export type TPdfPhoto =
  { attachmentId: number; jpeg: Uint8Array; width: number; height: number } | { attachmentId: number; notDrawn: string };

/** Messages with the photos among their files, then the index of exhibits, a page of files at a time. */
export type TPdfPart =
  { type: 'messages'; messages: TExportMessage[]; photos: TPdfPhoto[] } | { type: 'exhibits'; exhibits: TExportExhibit[] };
