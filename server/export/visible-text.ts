import { describeCodePoint } from '../../shared/visible-text';

// Evidence must show everything a message holds (server/export/README.md "Evidence exports"): a character that takes
// no room, or that turns the text around it (a file named "\u202Efdp.exe" reads "exe.pdf"), is
// written as its code, `[U+202E]`, so it is seen and cannot act. Never dropped.

/**
 * Unicode's format characters (Cf: bidirectional controls and isolates, zero-width characters, the
 * soft hyphen, the byte order mark, tags…), the Arabic letter mark among them; control characters
 * other than a line break; line and paragraph separators; a lone half of a surrogate pair; and
 * characters that are letters or marks to Unicode yet draw nothing: the combining grapheme joiner,
 * the Hangul fillers, Mongolian free variation selectors, the Khmer inherent vowels.
 */
const HIDDEN =
  /[\p{Cf}\u061C\u2028\u2029\u115F\u3164\uFFA0]|\u034F|\u1160|\u17B4|\u17B5|[\u180B-\u180F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]|(?!\n)\p{Cc}/gu;
/** Variation selectors: they choose how the character before them looks. */
const VARIATION_SELECTOR = /[\uFE00-\uFE0F\u{E0100}-\u{E01EF}]/gu;
const EMOJI = /\p{Extended_Pictographic}/u;

/**
 * The text with every hidden or direction-changing character written as `[U+XXXX]`. A variation
 * selector is kept only after an emoji the PDF draws (`canDraw`), where it belongs to that emoji;
 * anywhere else it is shown too (after an emoji written as its code, it has nothing to select).
 */
export function showHiddenCharacters(text: string, canDraw: (codePoint: number) => boolean): string {
  const shown = text.replace(HIDDEN, describeCodePoint);
  return shown.replace(VARIATION_SELECTOR, (selector: string, offset: number, whole: string) => {
    const before = codePointBefore(whole, offset);
    return before !== null && EMOJI.test(String.fromCodePoint(before)) && canDraw(before) && canDraw(selector.codePointAt(0)!)
      ? selector
      : describeCodePoint(selector);
  });
}

/** The code point that ends just before `offset` (both halves of a pair), or null at the start. */
function codePointBefore(text: string, offset: number): number | null {
  if (offset === 0) return null;
  const last = text.charCodeAt(offset - 1);
  const first = offset >= 2 ? text.charCodeAt(offset - 2) : 0;
  return last >= 0xdc00 && last <= 0xdfff && first >= 0xd800 && first <= 0xdbff ? text.codePointAt(offset - 2)! : last;
}
