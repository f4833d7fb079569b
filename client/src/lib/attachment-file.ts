import type { TAttachment } from '../../../shared/communication';
import { showInvisibleCharacters } from '../../../shared/visible-text';

// An attachment's file as every screen names it (the conversation, the composer's picker, a client's
// documents) and the address its bytes are read from.

export const mediaUrl = (id: number) => `/api/media/${id}`;

const TYPE_LABEL: Record<string, string> = {
  'application/pdf': 'PDF',
  'application/msword': 'Word',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'Word',
  'application/vnd.ms-excel': 'Excel',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'Excel',
  'application/zip': 'ZIP',
  'text/plain': 'Text',
  'image/jpeg': 'JPEG',
  'image/png': 'PNG',
  'image/webp': 'WebP',
};

/** "PDF", "Word", or the subtype in capitals ("HEIC"). */
export function shortType(mimeType: string): string {
  const base = mimeType.split(';')[0]!.trim();
  return TYPE_LABEL[base] ?? (base.split('/')[1] ?? base).replace(/^x-/, '').toUpperCase().slice(0, 12);
}

const KIND_LABEL: Record<TAttachment['kind'], string> = {
  image: 'Photo',
  sticker: 'Sticker',
  audio: 'Audio',
  video: 'Video',
  document: 'Document',
};

/** What a file is, in a word ("Photo"; "Voice note" for a recorded audio message). */
export function kindLabel(kind: TAttachment['kind'], voice?: boolean): string {
  return kind === 'audio' && voice ? 'Voice note' : KIND_LABEL[kind];
}

// A file's name is the sender's choice: a right-to-left override would make "Ref \u202Efdp.exe" read
// as "Ref exe.pdf", so such characters are shown by their code ("Ref [U+202E]fdp.exe"), as the Audit
// page and the exports do (client/README.md "A tour of the screens"). Only names: a message's text is the client's words.
export const visibleFileName = showInvisibleCharacters;

/** What a file is called on screen: its name as sent, invisible characters shown, else its kind and type ("Photo (JPEG)"). */
export function fileLabel(attachment: Pick<TAttachment, 'fileName' | 'kind' | 'mimeType'>): string {
  return attachment.fileName !== null
    ? visibleFileName(attachment.fileName)
    : `${KIND_LABEL[attachment.kind]} (${shortType(attachment.mimeType)})`;
}
