import { formatBytes, UPLOAD_LIMITS, uploadKindOf } from '../../../../shared/media-limits';

/** Every limit in one sentence, shown before a file is chosen or dropped. */
export const UPLOAD_LIMITS_TEXT = `Photos (JPEG, PNG) up to ${formatBytes(UPLOAD_LIMITS.image)}, audio and video up to ${formatBytes(UPLOAD_LIMITS.video)}, other files up to ${formatBytes(UPLOAD_LIMITS.document)}.`;

const SENT_AS = { image: 'photo', audio: 'audio', video: 'video', document: 'document' } as const;

/** How a chosen file will be sent and its limit: "sent as a photo, up to 5.0 MB". */
export function sentAsText(file: File): string {
  const kind = uploadKindOf(file.type || 'application/octet-stream');
  return `sent as ${kind === 'audio' ? '' : 'a '}${SENT_AS[kind]}, up to ${formatBytes(UPLOAD_LIMITS[kind])}`;
}
