import type { TAttachmentKind } from '../../shared/communication';

// A file from a phone's export carries no type, only its name (IMG-…jpg, PTT-…opus, 00000012-PHOTO-…jpg):
// what it is, as the thread shows and serves it, is read from its extension.

const BY_EXTENSION: Record<string, [TAttachmentKind, string]> = {
  jpg: ['image', 'image/jpeg'],
  jpeg: ['image', 'image/jpeg'],
  png: ['image', 'image/png'],
  heic: ['image', 'image/heic'],
  webp: ['sticker', 'image/webp'],
  gif: ['video', 'video/mp4'],
  mp4: ['video', 'video/mp4'],
  mov: ['video', 'video/quicktime'],
  '3gp': ['video', 'video/3gpp'],
  opus: ['audio', 'audio/ogg'],
  ogg: ['audio', 'audio/ogg'],
  m4a: ['audio', 'audio/mp4'],
  aac: ['audio', 'audio/aac'],
  mp3: ['audio', 'audio/mpeg'],
  amr: ['audio', 'audio/amr'],
  pdf: ['document', 'application/pdf'],
  docx: ['document', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
  doc: ['document', 'application/msword'],
  xlsx: ['document', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
  vcf: ['document', 'text/vcard'],
  txt: ['document', 'text/plain'],
};

export function fileKindOf(fileName: string): { kind: TAttachmentKind; mimeType: string } {
  const extension = /\.([A-Za-z0-9]{1,8})$/.exec(fileName)?.[1]?.toLowerCase() ?? '';
  const [kind, mimeType] = BY_EXTENSION[extension] ?? ['document', 'application/octet-stream'];
  return { kind, mimeType };
}
