import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config';
import { numberFormatHint, parseNumberInput } from '../../server/services/phone-input';

describe('parseNumberInput: a typed number to E.164 digits', () => {
  it.each([
    ['+44 7700 900123', 'GB', '447700900123'],
    ['07700 900123', 'GB', '447700900123'],
    ['0044 7700 900123', 'GB', '447700900123'],
    ['0044 7700 900123', undefined, '447700900123'],
    ['447700900123', 'GB', '447700900123'],
    ['+1 (415) 555-0142', 'GB', '14155550142'],
    ['415 555 0142', 'US', '14155550142'],
    ['087 123 4567', 'IE', '353871234567'],
    ['33700900555', undefined, '33700900555'],
    ['020 7946 0000', 'GB', '442079460000'],
    ['06 1234 5678', 'IT', '390612345678'],
  ] as const)('%s in %s → %s', (typed, country, digits) => {
    expect(parseNumberInput(typed, country)).toBe(digits);
  });

  it.each([
    ['07700 900123', undefined],
    ['12-34', 'GB'],
    ['+44 12', 'GB'],
    ['call me', 'GB'],
    ['+44 7700 900123 ext 4', 'GB'],
    // A national number too short for the country: the 0 could not be taken off (was +44 0770012).
    ['07700 12', 'GB'],
    ['07700 1234', 'GB'],
    // Another country's number typed without its code is not stored under the firm's (was +44 4155550199).
    ['(415) 555-0199', 'GB'],
    ['415 555 0199', 'GB'],
    ['9'.repeat(64), 'GB'],
    ['', 'GB'],
  ] as const)('refuses %j in %s', (typed, country) => {
    expect(parseNumberInput(typed, country)).toBeNull();
  });

  it("says which formats are expected, naming the firm's country", () => {
    expect(numberFormatHint('GB')).toBe(
      'Enter it with its country code, such as +44 7700 900123, or as a national number (United Kingdom).',
    );
    expect(numberFormatHint(undefined)).toBe('Enter it with its country code, such as +44 7700 900123.');
  });
});

describe('the country national numbers are read in', () => {
  it("is FIRM_PHONE's country by default", () => {
    expect(loadConfig({}).defaultCountry).toBe('GB');
    expect(loadConfig({ FIRM_PHONE: '+353 1 234 5678' }).defaultCountry).toBe('IE');
  });

  it("falls back to the calling code's main country when FIRM_PHONE is in a range the library cannot place", () => {
    expect(loadConfig({ FIRM_PHONE: '+447700900001' })).toMatchObject({ defaultCountry: 'GB', defaultCountryFrom: 'calling code' });
    expect(loadConfig({ FIRM_PHONE: '+1 555 0100' })).toMatchObject({ defaultCountry: 'US', defaultCountryFrom: 'calling code' });
    expect(loadConfig({})).toMatchObject({ defaultCountryFrom: 'FIRM_PHONE' });
  });

  it('is DEFAULT_COUNTRY when set (any case), and a bad code stops start-up naming the variable', () => {
    expect(loadConfig({ DEFAULT_COUNTRY: 'ie' }).defaultCountry).toBe('IE');
    expect(() => loadConfig({ DEFAULT_COUNTRY: 'Ireland' })).toThrow(/DEFAULT_COUNTRY: must be a two-letter ISO country code/);
  });
});
