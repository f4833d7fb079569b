import { describe, expect, it } from 'vitest';
import { normalizePhoneDigits, parsePhoneDigits, toMatchKey } from '../../shared/phone';

describe('phone digits', () => {
  it('strips +, spaces, dashes and brackets', () => {
    expect(normalizePhoneDigits('+44 7700-900 123')).toBe('447700900123');
    expect(normalizePhoneDigits('+1 (415) 555.0142')).toBe('14155550142');
  });

  it('treats a leading 00 as the international prefix', () => {
    expect(normalizePhoneDigits('0044 7700 900456')).toBe('447700900456');
  });

  it('accepts 8 to 15 digits and rejects anything else', () => {
    expect(parsePhoneDigits('1234567')).toBeNull();
    expect(parsePhoneDigits('12345678')).toBe('12345678');
    expect(parsePhoneDigits('123456789012345')).toBe('123456789012345');
    expect(parsePhoneDigits('1234567890123456')).toBeNull();
    expect(parsePhoneDigits('+44 7700 9001x3')).toBeNull();
    expect(parsePhoneDigits('')).toBeNull();
  });

  it('matches the same mobile written three ways by its last 9 digits', () => {
    const keys = ['+44 7700 900123', '447700900123', '07700900123'].map(toMatchKey);
    expect(new Set(keys)).toEqual(new Set(['700900123']));
  });
});
