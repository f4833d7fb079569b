// How a stored file is served: under which type, shown or downloaded, and by what name when it has
// none (its name and type were cleaned as it arrived: server/core/clean-file-metadata.ts).

// Served with their own type only these: images a browser shows, audio and video it plays, PDF and
// plain text. HTML, SVG, XML, scripts and everything unknown go out as octet-stream (and always as
// a download, sandboxed): nothing a client sends is ever rendered by the app's origin.
const SERVED_AS_IS = /^(image\/(jpeg|png|webp|gif)|audio\/[a-z0-9.+-]+|video\/[a-z0-9.+-]+|application\/pdf|text\/plain)$/;
const SHOWN_INLINE = new Set(['image/jpeg', 'image/png', 'image/webp']);

/** The type a file is served as: its base type only (never its parameters), when harmless. */
export function servedContentType(mimeType: string): string {
  const base = mimeType.split(';')[0]!.trim().toLowerCase();
  if (!SERVED_AS_IS.test(base)) return 'application/octet-stream';
  return base === 'text/plain' ? 'text/plain; charset=utf-8' : base;
}

/** Shown in the page (not downloaded): only a photo or sticker that is a JPEG, PNG or WebP. */
export function isShownInline(kind: string, mimeType: string): boolean {
  return (kind === 'image' || kind === 'sticker') && SHOWN_INLINE.has(mimeType.split(';')[0]!.trim().toLowerCase());
}

/** A download name when the sender gave none: `photo-12.jpg`. */
export function fallbackFileName(kind: string, id: number, mimeType: string): string {
  const ext = {
    'image/jpeg': 'jpg',
    'image/png': 'png',
    'image/webp': 'webp',
    'application/pdf': 'pdf',
    'video/mp4': 'mp4',
    'audio/ogg': 'ogg',
    'audio/mpeg': 'mp3',
    'audio/mp4': 'm4a',
    'audio/aac': 'aac',
    'audio/amr': 'amr',
  }[mimeType.split(';')[0]!.trim()];
  const stem =
    kind === 'image' ? 'photo' : kind === 'audio' ? 'audio' : kind === 'video' ? 'video' : kind === 'sticker' ? 'sticker' : 'document';
  return ext ? `${stem}-${id}.${ext}` : `${stem}-${id}`;
}
