import { describe, expect, it } from 'vitest';
import { checkQuestion } from '../../client/src/features/composer/buttons-form';
import { ZReplyButtons } from '../../server/messaging/send-inputs';
import { buttonTitleProblems } from '../../shared/button-titles';
import { hasOverstackedCharacter, visibleLength } from '../../shared/visible-length';
import { hasHiddenCharacters, hasHiddenCharactersOutsideEmoji } from '../../shared/visible-text';

// A button title counted as the client sees it (README "Quick-reply buttons"): the SPA and the
// server apply the same rules, from shared/button-titles.
const FAMILY = '👨\u200D👩\u200D👧';
const DECOMPOSED_E = 'e\u0301';
const ZWJ = '\u200D';

describe('visibleLength', () => {
  it.each([
    ['a family joined by zero-width joiners', FAMILY, 1],
    ['20 é typed as e and a combining accent', DECOMPOSED_E.repeat(20), 20],
    ['a skin-toned profession', '👩🏽\u200D💻', 1],
    ['a kiss with two skin tones', '🧑🏻\u200D❤️\u200D💋\u200D🧑🏼', 1],
    ['a subdivision flag (tag characters)', '🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}', 1],
    ['a country flag', '🇬🇧', 1],
    ['a keycap', '1️⃣', 1],
    ['a Devanagari syllable', 'क्षि', 1],
    ['plain words', 'Yes, please', 11],
  ])('counts %s as a person does', (_what, text, length) => {
    expect(visibleLength(text)).toBe(length);
  });
});

describe('hasHiddenCharactersOutsideEmoji', () => {
  it.each([
    FAMILY,
    `Family ${FAMILY}!`,
    '👩\u200D🦰',
    '❤️\u200D🔥',
    '🏳️\u200D⚧️',
    '🧑🏻\u200D🤝\u200D🧑🏼',
    '🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}',
  ])('sees the joiners and tags inside an emoji: %s', (text) => {
    expect(hasHiddenCharactersOutsideEmoji(text)).toBe(false);
  });

  it.each([
    ['between letters', `Ye${ZWJ}s`],
    ['leading', `${ZWJ}😀`],
    ['trailing an emoji', `😀${ZWJ}`],
    ['alone', ZWJ],
    ['between an emoji and a letter', `😀${ZWJ}b`],
    ['after a joined emoji', `${FAMILY}${ZWJ}`],
    ['text hidden in tag characters after a letter', 'a\u{E0068}\u{E0069}\u{E007F}'],
    ['text hidden in tag characters after an emoji', '😀\u{E0068}\u{E0069}\u{E0064}\u{E007F}'],
    ['a right-to-left override beside an emoji', `${FAMILY}\u202E`],
    ['a zero-width space', 'Yes\u200B'],
  ])('finds a joiner or other hidden character %s', (_where, text) => {
    expect(hasHiddenCharactersOutsideEmoji(text)).toBe(true);
  });

  it('leaves names as they were: a joiner is refused there, even in an emoji', () => {
    expect(hasHiddenCharacters(`Amelia ${FAMILY}`)).toBe(true);
  });
});

describe('a button title', () => {
  it('takes 20 characters as seen, a joined emoji and an accented letter one each, and refuses the 21st', () => {
    expect(buttonTitleProblems(`Family ${FAMILY}`)).toEqual([]);
    expect(buttonTitleProblems(DECOMPOSED_E.repeat(20))).toEqual([]);
    expect(buttonTitleProblems(FAMILY.repeat(20))).toEqual([]);
    expect(buttonTitleProblems(DECOMPOSED_E.repeat(21))).toEqual(['A button title can be at most 20 characters']);
    expect(buttonTitleProblems(`Ye${ZWJ}s`)).toEqual([expect.stringMatching(/hidden control or text-direction character/)]);
  });

  it('refuses a letter buried under stacked marks, which one count would hide', () => {
    const buried = `a${'\u0301\u0300'.repeat(10)}`;
    expect(visibleLength(buried)).toBe(1);
    expect(hasOverstackedCharacter(buried)).toBe(true);
    expect(buttonTitleProblems(buried)).toEqual([expect.stringMatching(/too many marks/)]);
    expect(hasOverstackedCharacter('🧑🏻\u200D❤️\u200D💋\u200D🧑🏼')).toBe(false);
  });

  it('is checked the same by the SPA before sending and by the server, which keeps it composed', () => {
    const titles = [`Family ${FAMILY}`, DECOMPOSED_E.repeat(20), `Ye${ZWJ}s`];
    expect(checkQuestion('Who comes?', titles)).toEqual({ buttons: [expect.stringMatching(/hidden control/)] });
    expect(checkQuestion('Who comes?', titles.slice(0, 2))).toBeNull();
    const parsed = ZReplyButtons.parse(titles.slice(0, 2).map((title, i) => ({ id: `b${i + 1}`, title })));
    expect(parsed.map((b) => b.title)).toEqual([`Family ${FAMILY}`, '\u00E9'.repeat(20)]);
    // Two titles composed differently still read the same: refused on both sides.
    expect(checkQuestion('Which?', ['Caf\u00E9', 'Cafe\u0301'])).toEqual({ buttons: [expect.stringMatching(/same title/)] });
  });
});
