import { isEmoji } from './emoji';
import { visibleCharacters } from './visible-length';

// Text from outside (a client's phone, a sign-in form, a pasted name) can carry characters that take
// no room on screen yet change what a reader sees: a right-to-left override makes `cod.exe` read as
// `exe.doc`, a zero-width space makes two names that look alike differ. Where a person must be able
// to trust what they read (the audit trail, evidence), such characters are shown by their code;
// where a name is typed, they are refused.

/**
 * Format characters (Unicode's Cf: bidirectional controls, zero-width characters, the byte order
 * mark, tag characters…; the Arabic letter mark U+061C among them), line and paragraph separators,
 * control characters other than tab and line breaks, and half of a surrogate pair alone.
 */
const INVISIBLE = /[\p{Cf}\u061C\u2028\u2029\uD800-\uDFFF]|(?![\t\n\r])\p{Cc}/gu;
/** The same, with every control character (a tab or a line break has no place in a name either). */
const HIDDEN_IN_NAME = /[\p{Cf}\p{Cc}\u061C\u2028\u2029\uD800-\uDFFF]/u;
/** What PostgreSQL cannot store in text: NUL, and a lone surrogate (UTF-8 cannot encode it). */
// eslint-disable-next-line no-control-regex -- a NUL is exactly what it looks for
const UNSTORABLE = /[\u0000\uD800-\uDFFF]/u;
const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, 'gu');
// A zero-width joiner between two emoji draws them as one (a family, a profession): it is seen.
const EMOJI_BEFORE = /[\p{Extended_Pictographic}\p{Emoji_Modifier}\uFE0F]$/u;
const EMOJI_AFTER = /^\p{Extended_Pictographic}/u;

/** `[U+202E]`: a character's code point, as it is written in Unicode's charts. */
export function describeCodePoint(character: string): string {
  return `[U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`;
}

/**
 * The text with every invisible or direction-changing character shown as `[U+XXXX]` (never dropped:
 * a reader must see that something was there). Tabs and line breaks are kept, and so is a
 * zero-width joiner inside an emoji sequence.
 */
export function showInvisibleCharacters(text: string): string {
  return text.replace(INVISIBLE, (character, offset: number, whole: string) => {
    if (
      character === '\u200D' &&
      EMOJI_BEFORE.test(whole.slice(Math.max(0, offset - 2), offset)) &&
      EMOJI_AFTER.test(whole.slice(offset + 1, offset + 3))
    )
      return character;
    return describeCodePoint(character);
  });
}

/** Whether a name has a character a person cannot see or that changes how the rest reads. */
export function hasHiddenCharacters(text: string): boolean {
  return HIDDEN_IN_NAME.test(text);
}

// In a label (server/messaging/README.md "Quick-reply buttons") also every character Unicode says to draw as nothing
// (joiners, variation selectors, tags, Hangul fillers, the combining grapheme joiner) and the blank
// braille cell: each can carry unseen text, or make two labels that read alike differ.
const HIDDEN_IN_LABEL = new RegExp(`${HIDDEN_IN_NAME.source}|[\\p{Default_Ignorable_Code_Point}\\u2800]`, 'u');
const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;

/**
 * Whether a label (a button title) has a character a person cannot see or that changes how the
 * rest reads, as `hasHiddenCharacters` and any default-ignorable character or blank braille cell,
 * except the joiners, selectors and tags inside one emoji (one of Unicode's recommended ones, or
 * emoji joined side by side), which are seen.
 */
export function hasHiddenCharactersOutsideEmoji(text: string): boolean {
  return visibleCharacters(text).some((character) => !isEmoji(character) && HIDDEN_IN_LABEL.test(character));
}

/** The text without the characters Unicode says to draw as nothing: what a reader tells apart. */
export function withoutIgnorableCharacters(text: string): string {
  return text.replace(IGNORABLE, '');
}

/** Whether the text has a character PostgreSQL cannot store (NUL, a lone surrogate). */
export function hasUnstorableCharacters(text: string): boolean {
  return UNSTORABLE.test(text);
}

/** The text with only what PostgreSQL cannot store written as `[U+XXXX]`; everything else kept as it came. */
export function escapeUnstorableCharacters(text: string): string {
  return text.replace(UNSTORABLE_ALL, describeCodePoint);
}

/** What a field (`the name`, `the title`) says when it has a hidden character. */
export function hiddenCharacterMessage(field: string): string {
  return `${field[0]!.toUpperCase()}${field.slice(1)} has a hidden control or text-direction character (often pasted with it): type it again`;
}

/** Control characters (Unicode's Cc: U+0000–U+001F, U+007F–U+009F) and bidirectional overrides (which can make `cod.exe` read as `exe.doc`). */
export const UNSHOWABLE = /[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;
/** Half of a surrogate pair alone: not text (jsonb refuses it, UTF-8 cannot encode it). */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
