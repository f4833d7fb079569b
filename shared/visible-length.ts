// How long text is as a person counts it: one for each character they see. A letter typed with its
// accent as a separate mark (`e` + U+0301) is one `é`, and an emoji made of several joined by a
// zero-width joiner (a family of three) is one, where JavaScript's `length` counts 2 and 8.

// Older browsers lack Intl.Segmenter: there code points are counted (the server, which has it, judges).
const graphemes = typeof Intl.Segmenter === 'function' ? new Intl.Segmenter(undefined, { granularity: 'grapheme' }) : null;

/** The characters a person sees (Unicode's grapheme clusters), of the text composed (NFC). */
export function visibleCharacters(text: string): string[] {
  const composed = text.normalize('NFC');
  return graphemes ? Array.from(graphemes.segment(composed), (s) => s.segment) : Array.from(composed);
}

/** How many characters a person sees in the text. */
export function visibleLength(text: string): number {
  return visibleCharacters(text).length;
}

/**
 * The most UTF-16 units one seen character may take: the longest emoji (a kiss with two skin tones,
 * a subdivision flag) takes 15, a letter with its marks far fewer. More is a letter buried under
 * stacked marks, which would let a short count hide a long text.
 */
export const VISIBLE_CHARACTER_UNITS_MAX = 16;

/** Whether one character of the text is built of more than `VISIBLE_CHARACTER_UNITS_MAX` units. */
export function hasOverstackedCharacter(text: string): boolean {
  return visibleCharacters(text).some((character) => character.length > VISIBLE_CHARACTER_UNITS_MAX);
}
