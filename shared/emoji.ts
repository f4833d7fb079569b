// What one emoji is, for a reaction and inside a button title (server/messaging/README.md "Quick-reply buttons"):
// Unicode's recommended emoji (sequences with skin tones, flags, keycaps, families, the three
// subdivision flags), or one pictograph with or without its emoji presentation selector. Nothing
// else may ride along, such as tag or variation characters the client's phone would carry unseen.
// Made on first use, as the `v` flag is recent (Node 20, browsers since 2023; TypeScript's ES2022
// target refuses it as a literal); where it is missing, the older rule of one pictograph among
// non-space characters stands in (there the server, which has it, judges).
let oneEmoji: RegExp | null = null;

function oneEmojiPattern(): RegExp {
  try {
    return new RegExp('^(?:\\p{RGI_Emoji}|\\p{Extended_Pictographic}\\uFE0F?)$', 'v');
  } catch {
    return /^(?:\p{Regional_Indicator}{2}|[0-9#*]\uFE0F?\u20E3|\P{White_Space}*\p{Extended_Pictographic}\P{White_Space}*)$/u;
  }
}

/** Whether `character` (one grapheme cluster) is exactly one emoji. */
export function isEmoji(character: string): boolean {
  oneEmoji ??= oneEmojiPattern();
  return oneEmoji.test(character);
}

// Pictographs (each maybe with its presentation selector or skin tone) joined by zero-width joiners.
const EMOJI_PART = String.raw`\p{Extended_Pictographic}(?:\uFE0F|\p{Emoji_Modifier})?`;
const JOINED_EMOJI = new RegExp(String.raw`^${EMOJI_PART}(?:\u200D${EMOJI_PART})+$`, 'u');

/**
 * The emoji a phone draws side by side for a joined sequence that is not one recommended emoji
 * (five 😀 joined show as five; so may an emoji newer than this runtime's Unicode data); null for
 * any other character. Its joiners hide nothing: a phone shows the parts, joined or not.
 */
export function emojiDrawnApart(character: string): string[] | null {
  return JOINED_EMOJI.test(character) && !isEmoji(character) ? character.split('\u200D') : null;
}
