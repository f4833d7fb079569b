// What is wrong with a court bundle, in the words "Verify a copy" shows (server/export/README.md "Evidence
// exports"); judge-copy.ts and `npm run export:verify` recognise a row by these sentences.

/** A ZIP's `problem` when it cannot be read at all (cut short, overwritten): said plainly, not in the ZIP library's words. */
export const DAMAGED_ZIP = 'it is damaged or incomplete';
/** The problem of a listed file the ZIP does not hold. */
export const NOT_IN_ZIP = 'not in the ZIP';
/** The problem of an exhibit messages.json records that the ZIP neither holds nor lists as missing (the row's start). */
export const UNACCOUNTED = 'messages.json records this exhibit';
/** A missing entry's problem when messages.json records the exhibit as held. */
export const MISSING_BUT_HELD = 'listed as missing although messages.json records it as held';
/** A missing entry's problem when messages.json records no such exhibit. */
export const MISSING_UNRECORDED = 'listed as missing although messages.json records no such exhibit';

/** A ZIP that cannot be checked, with the sentence saying why. */
export class UncheckableZip extends Error {
  override name = 'UncheckableZip';
}

/**
 * The ZIP library's error, in words for the person checking: a name that would leave its folder
 * is said so (no bundle has one); anything else is a damaged ZIP. The library's own text is never
 * shown ("End of central directory record signature not found" tells a user nothing).
 */
export function unreadable(error: unknown): UncheckableZip {
  if (error instanceof UncheckableZip) return error;
  const message = error instanceof Error ? error.message : '';
  if (/relative path|absolute path|invalid characters in fileName/i.test(message))
    return new UncheckableZip('one of its entries is named with a path that leaves its folder, which no bundle has');
  if (/encrypt/i.test(message)) return new UncheckableZip('it is encrypted, which no bundle is');
  return new UncheckableZip(DAMAGED_ZIP);
}
