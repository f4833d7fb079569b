import { LONE_SURROGATE, UNSHOWABLE } from '../../shared/visible-text';

// A file's name and type come from outside (a client's phone, a browser) and are shown to staff and
// decide how the file is served: both are cleaned once, here, for every way a file arrives (the
// webhook, uploads, exports' names).

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
