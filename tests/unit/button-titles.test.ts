import { describe, expect, it } from 'vitest';
import { checkQuestion } from '../../client/src/features/composer/buttons-form';
import { ZReplyButtons } from '../../server/messaging/send-inputs';
import { buttonTitleProblems } from '../../shared/button-titles';
import { hasOverstackedCharacter, visibleLength } from '../../shared/visible-length';
import { hasHiddenCharacters, hasHiddenCharactersOutsideEmoji } from '../../shared/visible-text';

// A button title counted as the client sees it (server/messaging/README.md "Quick-reply buttons"): the SPA and the
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

// Hidden text smuggled into a title (server/messaging/README.md "Quick-reply buttons"): only the joiners, selectors
// and tags inside one emoji are seen; any other character Unicode draws as nothing is refused.
const TAGS = (letters: string) => Array.from(letters, (c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('');
const BLACK_FLAG = '🏴';
const FLAG_OF = (subdivision: string) => `${BLACK_FLAG}${TAGS(subdivision)}\u{E007F}`;
const HIDDEN = /hidden control or text-direction character/;
const GRINS_JOINED = Array(5).fill('😀').join(ZWJ);

describe('a button title with hidden characters', () => {
  it.each([
    ['a black flag with tag letters that name no subdivision', FLAG_OF('pwned')],
    ['twenty such flags, 320 units counted as 20', FLAG_OF('pwnedx').repeat(20)],
    ['seven supplementary variation selectors after each letter', Array.from('Yes', (c) => `${c}${'\u{E0100}'.repeat(7)}`).join('')],
    [
      'fifteen variation selectors after a letter',
      `Y${'\uFE00\uFE01\uFE02\uFE03\uFE04\uFE05\uFE06\uFE07\uFE08\uFE09\uFE0A\uFE0B\uFE0C\uFE0D\uFE0E'}es`,
    ],
    ['variation selectors after an emoji', `😀${'\uFE0F'.repeat(15)}`],
    ['a combining grapheme joiner', 'Y\u034Fes'],
    ['a Hangul filler', 'Yes\u3164'],
    ['a Hangul choseong filler', '\u115FYes'],
    ['a blank braille cell', 'Yes\u2800'],
  ])('refuses %s', (_what, title) => {
    expect(buttonTitleProblems(title)).toContainEqual(expect.stringMatching(HIDDEN));
  });

  it.each([
    ['Yes', 'Yes\u3164'],
    ['Yes', 'Y\u034Fes'],
    ['Yes', 'Y\uFE00es'],
    ['Yes', 'Ye\u{E0100}s'],
  ])('refuses %j beside %j as the same title', (plain, lookAlike) => {
    const refusal = checkQuestion('Which?', [plain, lookAlike])?.buttons ?? [];
    expect(refusal).toContainEqual(expect.stringMatching(/same title/));
    expect(refusal).toContainEqual(expect.stringMatching(HIDDEN));
    expect(() => ZReplyButtons.parse([plain, lookAlike].map((title, i) => ({ id: `b${i + 1}`, title })))).toThrow(/same title/);
  });

  it('tells apart no titles that differ only by a selector the emoji is drawn the same without', () => {
    expect(buttonTitleProblems('😀\uFE0F')).toEqual([]);
    expect(checkQuestion('Which?', ['😀', '😀\uFE0F'])).toEqual({ buttons: [expect.stringMatching(/same title/)] });
  });

  it.each([
    ['a family', FAMILY],
    ['England’s flag', FLAG_OF('gbeng')],
    ['Wales’s flag', FLAG_OF('gbwls')],
    ['a thumbs up with a skin tone', '👍🏽'],
    ['a keycap', '1️⃣'],
    ['a heart with its emoji selector', '❤️'],
  ])('takes %s as one character and nothing hidden', (_what, emoji) => {
    expect(visibleLength(emoji)).toBe(1);
    expect(buttonTitleProblems(`${emoji}${'a'.repeat(19)}`)).toEqual([]);
  });

  it('counts five 😀 joined into no emoji as the five the phone shows', () => {
    expect(visibleLength(GRINS_JOINED)).toBe(5);
    expect(buttonTitleProblems(`${GRINS_JOINED}${'a'.repeat(15)}`)).toEqual([]);
    expect(buttonTitleProblems(`${GRINS_JOINED}${'a'.repeat(16)}`)).toEqual(['A button title can be at most 20 characters']);
    expect(buttonTitleProblems(Array(20).fill('😀').join(ZWJ))).toEqual([]);
  });
});
