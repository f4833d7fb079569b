import { describeCodePoint, showInvisibleCharacters } from '../../shared/visible-text';

// A court bundle's files are unpacked on whatever the other side uses (Windows, macOS, a ZIP reader
// in a browser), so a stored name that came from a client's phone is made safe for all of them:
// server/export/README.md "Evidence exports". The exhibit number in front keeps two files of the same name apart.

/** A name's length in a bundle, in UTF-8 bytes: well under every file system's 255 with the path around it. */
export const EXHIBIT_NAME_MAX_BYTES = 150;

/** Characters Windows or a ZIP reader gives a meaning (a folder, a drive, a wildcard), and line separators. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what it replaces
const UNSAFE = /[/\\:*?"<>|\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
/** Invisible letters and joiners Unicode does not class as format characters (Cf): shown by their code too. */
const INVISIBLE_LETTERS = /[\u034f\u115f\u1160\u3164\uffa0]/g;
/**
 * Variation selectors: they choose how the character before them is drawn, and take no room of
 * their own; in a name a file system and a ZIP reader keep, they are shown by their code too (a
 * name that looks alike yet differs would otherwise differ invisibly).
 */
const VARIATION_SELECTORS = /[\uFE00-\uFE0F\u{E0100}-\u{E01EF}]/gu;
/** Device names Windows refuses as a file's name, with or without an extension, in any case. */
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[1-9¹²³]|lpt[1-9¹²³])$/i;
/** An extension worth keeping when a long name is cut: a dot and a few letters or digits. */
const EXTENSION = /\.[\p{L}\p{N}]{1,16}$/u;
/** What a cut may not split: a `[U+XXXX]` written for a hidden character, or a character with its combining marks. */
const UNIT = /\[U\+[0-9A-F]{4,6}\]|[\s\S]\p{M}*/gu;

const EXTENSION_OF_TYPE: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'image/heic': 'heic',
  'application/pdf': 'pdf',
  'video/mp4': 'mp4',
  'video/3gpp': '3gp',
  'video/quicktime': 'mov',
  'audio/ogg': 'ogg',
  'audio/mpeg': 'mp3',
  'audio/mp4': 'm4a',
  'audio/aac': 'aac',
  'audio/amr': 'amr',
  'text/plain': 'txt',
  'text/csv': 'csv',
  'text/vcard': 'vcf',
  'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.ms-excel': 'xls',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'application/vnd.ms-powerpoint': 'ppt',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': 'pptx',
  'application/rtf': 'rtf',
  'application/zip': 'zip',
  'application/octet-stream': 'bin',
};

/** `file.pdf`: the name of a file that came without one, from its type. */
function unnamed(mimeType: string): string {
  const extension = EXTENSION_OF_TYPE[mimeType.split(';')[0]!.trim().toLowerCase()];
  return extension ? `file.${extension}` : 'file';
}

const trimDotsAndSpaces = (name: string) => name.replace(/^[\s.]+|[\s.]+$/gu, '');

/** At most `maxBytes` of UTF-8, cut between characters (never inside a `[U+XXXX]`), the extension kept. */
function cutToBytes(name: string, maxBytes: number): string {
  if (Buffer.byteLength(name) <= maxBytes) return name;
  const extension = EXTENSION.exec(name)?.[0] ?? '';
  let room = maxBytes - Buffer.byteLength(extension);
  let stem = '';
  for (const unit of name.slice(0, name.length - extension.length).match(UNIT) ?? []) {
    room -= Buffer.byteLength(unit);
    if (room < 0) break;
    stem += unit;
  }
  return `${trimDotsAndSpaces(stem) || 'file'}${extension}`;
}

/**
 * A stored file's name as it goes into a bundle: no `/ \ : * ? " < > |` or control characters
 * (each becomes `_`); a hidden or direction-changing character written as `[U+202E]`, so that
 * "\u202Efdp.exe" reads as what it is rather than as "exe.pdf" (variation selectors too); no leading or trailing dots or
 * spaces (so never `.` or `..`); a Windows device name (`CON`, `lpt1.txt`) prefixed with `_`; at
 * most EXHIBIT_NAME_MAX_BYTES, keeping the extension. No name at all is `file` with an extension
 * from the type.
 */
export function exhibitFileName(name: string | null | undefined, mimeType: string): string {
  // Half a surrogate pair is shown by its code too (showInvisibleCharacters), so every name is valid UTF-8.
  // Selectors first: a joiner after one no longer sits between two emoji, and is shown by its code too.
  const visible = showInvisibleCharacters((name ?? '').replace(UNSAFE, '_').replace(VARIATION_SELECTORS, describeCodePoint)).replace(
    INVISIBLE_LETTERS,
    describeCodePoint,
  );
  const trimmed = trimDotsAndSpaces(visible);
  if (!trimmed) return unnamed(mimeType);
  const safe = WINDOWS_RESERVED.test(trimmed.split('.')[0]!.trimEnd()) ? `_${trimmed}` : trimmed;
  return cutToBytes(safe, EXHIBIT_NAME_MAX_BYTES);
}

/** `exhibits/007-contract.pdf`: the exhibit's number, three digits at least (wider past 999), then its safe name. */
export function exhibitPath(exhibit: number, name: string | null | undefined, mimeType: string): string {
  return `exhibits/${String(exhibit).padStart(3, '0')}-${exhibitFileName(name, mimeType)}`;
}
