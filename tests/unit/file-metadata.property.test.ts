import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cleanFileName, cleanMimeType } from '../../server/core/clean-file-metadata';
import { isShownInline, servedContentType } from '../../server/media/file-metadata';
import { sha256Hex } from '../../server/core/sha256-hex';
import { parsePayload } from '../../server/webhook/parse-payload';

// File names and types come from a client's phone or a browser: hostile input by default.
const hostileName = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 400 }),
  fc.constantFrom(
    '../../etc/passwd',
    '..',
    '.',
    '',
    '   ',
    'C:\\Windows\\win.ini',
    'invoice\u202Efdp.exe',
    'a\u0000b.pdf',
    'x\r\nSet-Cookie: a=b',
    '\uD800.pdf',
    'report.pdf\u200F',
  ),
  fc
    .array(fc.constantFrom('/', '\\', '\u202E', '\u0000', '\n', '.', 'a', 'é', '😀', '\uDC00'), { maxLength: 300 })
    .map((parts) => parts.join('')),
);
const hostileMime = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.constantFrom(
    'image/png; x=y, text/html',
    'text/plain, text/html',
    'text/html',
    'image/svg+xml',
    'TEXT/HTML; charset=utf-8',
    'application/xhtml+xml',
    'text/javascript',
    'image/jpeg\r\nX-Evil: 1',
    'image/png',
    'audio/ogg; codecs=opus',
    '',
  ),
);

describe('file names and MIME types from outside', () => {
  it('a cleaned name has no path, no control or direction characters, no lone surrogates, and at most 255 characters', () => {
    fc.assert(
      fc.property(hostileName, (name) => {
        const clean = cleanFileName(name);
        if (clean === null) return;
        expect(clean.length).toBeGreaterThan(0);
        expect(clean.length).toBeLessThanOrEqual(255);
        expect(clean).not.toMatch(/[\\/\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/u);
        expect(clean).not.toMatch(/^\.+$/);
        expect(clean).toBe(clean.trim());
        expect(() => encodeURIComponent(clean)).not.toThrow(); // no lone surrogate
      }),
      { numRuns: 500 },
    );
  });

  it('a cleaned MIME type is type/subtype with printable parameters, else octet-stream', () => {
    fc.assert(
      fc.property(hostileMime, (mime) => {
        const clean = cleanMimeType(mime);
        expect(clean).toMatch(/^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*(\s*;[ -~]*)?$/);
        expect(clean).not.toMatch(/[\r\n]/);
      }),
      { numRuns: 500 },
    );
  });

  it('nothing a browser would render as a page is served with its own type, and only photos inline', () => {
    fc.assert(
      fc.property(hostileMime, (mime) => {
        const served = servedContentType(cleanMimeType(mime));
        expect(served).not.toMatch(/html|xml|svg|javascript|ecmascript/i);
        expect(served).toMatch(/^[a-z0-9.+-]+\/[a-z0-9.+-]+(; charset=utf-8)?$/); // a base type, never the sender's parameters
        if (isShownInline('document', cleanMimeType(mime))) throw new Error('a document is never shown inline');
        if (isShownInline('image', cleanMimeType(mime))) expect(served).toMatch(/^image\/(jpeg|png|webp)$/);
      }),
      { numRuns: 500 },
    );
    expect(servedContentType('text/html')).toBe('application/octet-stream');
    expect(servedContentType('image/svg+xml')).toBe('application/octet-stream');
    expect(servedContentType('application/pdf')).toBe('application/pdf');
    // A browser reads the last type of a comma list (found by a hostile probe): never passed on.
    expect(cleanMimeType('image/png; x=y, text/html')).toBe('application/octet-stream');
    expect(servedContentType('image/png; x=y')).toBe('image/png');
  });

  it('hostile names and types in a webhook item never throw, and what is kept is clean', () => {
    fc.assert(
      fc.property(hostileName, hostileMime, (filename, mime) => {
        const parsed = parsePayload({
          messages: [{ from: '447700900123', id: 'wamid.f', type: 'document', document: { id: '123', filename, mime_type: mime } }],
        });
        const attachment = parsed.messages[0]?.attachment;
        expect(attachment).toBeDefined();
        expect(attachment?.fileName).toBe(cleanFileName(filename));
        expect(attachment?.mimeType).toBe(cleanMimeType(mime));
      }),
      { numRuns: 300 },
    );
  });

  it('reads the provider sha256 in hex or base64, and nothing else', () => {
    const hex = 'a'.repeat(64);
    expect(sha256Hex(hex.toUpperCase())).toBe(hex);
    expect(sha256Hex(Buffer.from(hex, 'hex').toString('base64'))).toBe(hex);
    expect(sha256Hex('4654+8g=')).toBeNull();
    expect(sha256Hex(null)).toBeNull();
  });
});
