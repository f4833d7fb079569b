import type { TAttachmentKind } from './communication';

// What the firm may send (server/media/README.md "Files", the provider's own limits): JPEG and PNG photos up to
// 5 MB, audio and video up to 16 MB, anything else as a document up to 100 MB.

const MB = 1024 * 1024;
export const MAX_MEDIA_BYTES = 100 * MB;

export const UPLOAD_LIMITS: Record<'image' | 'audio' | 'video' | 'document', number> = {
  image: 5 * MB,
  audio: 16 * MB,
  video: 16 * MB,
  document: MAX_MEDIA_BYTES,
};

const SEND_AS_IMAGE = new Set(['image/jpeg', 'image/png']);
const SEND_AS_AUDIO = new Set(['audio/aac', 'audio/amr', 'audio/mpeg', 'audio/mp4', 'audio/ogg']);
const SEND_AS_VIDEO = new Set(['video/mp4', 'video/3gpp']);

/** The MIME type without parameters, lower case (`audio/ogg; codecs=opus` → `audio/ogg`). */
export function baseMimeType(mimeType: string): string {
  return mimeType.split(';')[0]!.trim().toLowerCase();
}

/** How an uploaded file is sent: the kinds the provider plays or shows, else a document. */
export function uploadKindOf(mimeType: string): 'image' | 'audio' | 'video' | 'document' {
  const base = baseMimeType(mimeType);
  if (SEND_AS_IMAGE.has(base)) return 'image';
  if (SEND_AS_AUDIO.has(base)) return 'audio';
  if (SEND_AS_VIDEO.has(base)) return 'video';
  return 'document';
}

/**
 * How a file is sent: as `uploadKindOf` says, or as a document when the person chose that (a photo
 * or video over its own limit can still go as a document, up to the document limit).
 */
export function sendKindOf(mimeType: string, options: { asDocument?: boolean } = {}): 'image' | 'audio' | 'video' | 'document' {
  return options.asDocument ? 'document' : uploadKindOf(mimeType);
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < MB) return `${(bytes / 1024).toFixed(bytes < 10 * 1024 ? 1 : 0)} KB`;
  return `${(bytes / MB).toFixed(bytes < 10 * MB ? 1 : 0)} MB`;
}

/** The sentence shown when a file is over its limit. */
export function tooLargeMessage(kind: TAttachmentKind, limit: number): string {
  const what =
    kind === 'image' ? 'A photo (JPEG or PNG)' : kind === 'audio' ? 'An audio file' : kind === 'video' ? 'A video' : 'A document';
  return `${what} can be at most ${formatBytes(limit)}. Nothing was uploaded.`;
}

/** What an upload became (`POST /api/media`, `GET /api/uploads/:id/attachment`): the attachment to send. */
export type TUploadedFile = {
  attachmentId: number;
  kind: 'image' | 'audio' | 'video' | 'document';
  mimeType: string;
  fileName: string;
  size: number;
};
