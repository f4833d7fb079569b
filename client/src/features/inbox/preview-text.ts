/** How much of a message a one-line preview keeps: more than any list is wide. */
export const PREVIEW_GRAPHEMES = 90;

let segmenter: Intl.Segmenter | null = null;

/**
 * A message as one line of at most `max` characters as a person counts them (an emoji with its skin
 * tone, a flag, a letter with its accents are one each), with "…" when it goes on: never cut inside
 * a character, which shows as a broken glyph.
 */
export function clipPreview(text: string, max = PREVIEW_GRAPHEMES): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line.length <= max) return line; // fewer code units than `max`: fewer characters too
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  let kept = '';
  let count = 0;
  for (const { segment } of segmenter.segment(line)) {
    if (count === max) return `${kept.trimEnd()}…`;
    kept += segment;
    count++;
  }
  return kept;
}
