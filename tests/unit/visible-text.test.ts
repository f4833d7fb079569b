import { describe, expect, it } from 'vitest';
import { hasHiddenCharacters, hasUnstorableCharacters, hiddenCharacterMessage, showInvisibleCharacters } from '../../shared/visible-text';

describe('showInvisibleCharacters', () => {
  it.each([
    ['a right-to-left override', 'invoice\u202Etxt.exe', 'invoice[U+202E]txt.exe'],
    [
      'every bidirectional control',
      '\u200E\u200F\u202A\u202B\u202C\u202D\u2066\u2067\u2068\u2069',
      '[U+200E][U+200F][U+202A][U+202B][U+202C][U+202D][U+2066][U+2067][U+2068][U+2069]',
    ],
    ['the Arabic letter mark', 'a\u061Cb', 'a[U+061C]b'],
    ['zero-width characters and the byte order mark', '\u200Ba\u200Cb\u200Dc\u2060d\uFEFF', '[U+200B]a[U+200C]b[U+200D]c[U+2060]d[U+FEFF]'],
    ['a soft hyphen and tag characters (text hidden in an emoji)', 'x\u00AD\u{E0041}\u{E0042}', 'x[U+00AD][U+E0041][U+E0042]'],
    [
      'control characters other than tab and line breaks',
      'a\u0000b\u0007c\u001Bd\u007Fe\u0085',
      'a[U+0000]b[U+0007]c[U+001B]d[U+007F]e[U+0085]',
    ],
    ['line and paragraph separators', 'a\u2028b\u2029c', 'a[U+2028]b[U+2029]c'],
    ['half of a surrogate pair', 'a\uD800b\uDC00', 'a[U+D800]b[U+DC00]'],
  ])('shows %s by its code', (_what, text, shown) => {
    expect(showInvisibleCharacters(text)).toBe(shown);
  });

  it('keeps what is seen: letters of any script, emoji (joined ones too), tabs and line breaks', () => {
    for (const text of ['Amelia Hart', 'Zoë Ørsted', 'محمد', 'שלום', '👨‍👩‍👧 family', '👩🏽‍💻', '❤️‍🔥', 'a\tb\nc\r\n', '😀']) {
      expect(showInvisibleCharacters(text)).toBe(text);
    }
  });

  it('a joiner that joins no emoji is shown', () => {
    expect(showInvisibleCharacters('a\u200D😀')).toBe('a[U+200D]😀');
    expect(showInvisibleCharacters('😀\u200Db')).toBe('😀[U+200D]b');
  });
});

describe('hasHiddenCharacters', () => {
  it.each(['\u0000', '\t', '\n', '\u202E', '\u061C', '\u200B', '\u200C', '\u200D', '\u2060', '\uFEFF', '\u2028', '\uD800', '\u{E0041}'])(
    'finds %j in a name',
    (character) => {
      expect(hasHiddenCharacters(`Amelia${character}Hart`)).toBe(true);
    },
  );

  it('passes names in any script', () => {
    for (const name of ['Amelia Hart', "O'Brien-Smith", 'Zoë Ørsted', 'محمد علي', 'José 😀', '李小龍'])
      expect(hasHiddenCharacters(name)).toBe(false);
  });
});

it('hasUnstorableCharacters finds a NUL and lone surrogates, not a whole surrogate pair', () => {
  expect(hasUnstorableCharacters('a\u0000')).toBe(true);
  expect(hasUnstorableCharacters('a\uD800')).toBe(true);
  expect(hasUnstorableCharacters('\uDC00a')).toBe(true);
  expect(hasUnstorableCharacters('😀 \u202E')).toBe(false);
});

it('hiddenCharacterMessage names the field', () => {
  expect(hiddenCharacterMessage('the title')).toMatch(/^The title has a hidden control/);
});
