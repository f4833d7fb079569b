import { emojiDrawnApart } from './emoji';

// How long text is as a person counts it: one for each character they see. A letter typed with its
// accent as a separate mark (`e` + U+0301) is one `é`, and an emoji made of several joined by a
// zero-width joiner (a family of three) is one, where JavaScript's `length` counts 2 and 8; five 😀
// joined, which no phone draws as one, are five.

// Older browsers lack Intl.Segmenter: there a letter with its marks, and an emoji with its joiners,
// selectors, skin tones and tags, is taken as one character (the server, which has it, judges).
const graphemes = typeof Intl.Segmenter === 'function' ? new Intl.Segmenter(undefined, { granularity: 'grapheme' }) : null;
const ROUGH_GRAPHEME =
  /\p{Regional_Indicator}{2}|\p{Extended_Pictographic}(?:[\p{M}\p{Emoji_Modifier}\u{E0020}-\u{E007F}]|\u200D\p{Extended_Pictographic})*|[\s\S]\p{M}*/gu;

/**
 * The characters a person sees, of the text composed (NFC): Unicode's grapheme clusters, except
 * that emoji joined into no recommended emoji are each one, as the phone draws them apart.
 */
export function visibleCharacters(text: string): string[] {
  const composed = text.normalize('NFC');
  if (!graphemes) return composed.match(ROUGH_GRAPHEME) ?? [];
  return Array.from(graphemes.segment(composed), (s) => s.segment).flatMap((c) => emojiDrawnApart(c) ?? [c]);
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
