import { describe, expect, it } from 'vitest';
import { clipPreview } from '../../client/src/features/inbox/preview-text';

describe('a message as a one-line preview', () => {
  it('keeps a short message whole, on one line', () => {
    expect(clipPreview('Hello,\n  see you  at ten')).toBe('Hello, see you at ten');
  });

  it('cuts a long one after whole characters and says so with "…"', () => {
    const thumbs = '👍🏽'; // two code points, four UTF-16 units: one character
    const text = `${'a'.repeat(9)}${thumbs}${'b'.repeat(20)}`;
    expect(clipPreview(text, 10)).toBe(`${'a'.repeat(9)}${thumbs}…`);
    expect(clipPreview(text, 9)).toBe(`${'a'.repeat(9)}…`);
    const flags = '🇬🇧🇫🇷🇩🇪';
    expect(clipPreview(`${flags}${flags}`, 4)).toBe('🇬🇧🇫🇷🇩🇪🇬🇧…');
    expect(clipPreview('e\u0301'.repeat(20), 3)).toBe('e\u0301e\u0301e\u0301…'); // a letter with its accent
  });

  it('does not end with a space before the "…"', () => {
    expect(clipPreview('word '.repeat(40), 10)).toBe('word word…');
  });
});
