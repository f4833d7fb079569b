// A file's name and type come from outside (a client's phone, a browser) and are shown to staff and
// decide how the file is served: both are cleaned once, here, for every way a file arrives.

/** Control characters (Unicode's Cc: U+0000–U+001F, U+007F–U+009F) and bidirectional overrides (which can make `cod.exe` read as `exe.doc`). */
export const UNSHOWABLE = /[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;
/** Half of a surrogate pair alone: not text (jsonb refuses it, UTF-8 cannot encode it). */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** A name to show and offer as the download's name: no path, nothing unshowable, at most 255 characters; null if nothing is left. */
export function cleanFileName(name: string | null | undefined): string | null {
  const clean = (name ?? '')
    .replace(LONE_SURROGATE, '')
    .replace(UNSHOWABLE, '')
    .replace(/[\\/]/g, '_')
    .trim()
    .slice(0, 255)
    .replace(/[\uD800-\uDBFF]$/, '')
    .trim();
  return clean && !/^\.+$/.test(clean) ? clean : null;
}

// Parameters printable and without commas: a browser reads `image/png; x=y, text/html` as its last
// type (HTML).
const MIME_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*(\s*;[ -+\--~]*)?$/;

/** `type/subtype` (parameters kept), lower case; anything else is the neutral octet-stream. */
export function cleanMimeType(mimeType: string | null | undefined): string {
  const value = (mimeType ?? '').trim().toLowerCase();
  return value.length <= 255 && MIME_TYPE.test(value) ? value : 'application/octet-stream';
}

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
