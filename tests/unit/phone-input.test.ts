import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/core/config';
import { impossibleNumberMessage, numberFormatHint, parseNumberInput } from '../../server/core/phone-input';

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
    // Ofcom's drama ranges that libphonenumber already finds valid, and those it does not.
    ['020 7946 0999', 'GB', '442079460999'],
    ['0161 496 0000', 'GB', '441614960000'],
    ['07700 900000', 'GB', '447700900000'],
    ['07700 900999', 'GB', '447700900999'],
    ['01632 960000', 'GB', '441632960000'],
    ['0115 496 0999', 'GB', '441154960999'],
    // Each kind of UK number a client is reached on, typed nationally.
    ['07911 123456', 'GB', '447911123456'],
    ['056 1234 5678', 'GB', '445612345678'],
    ['070 1234 5678', 'GB', '447012345678'],
    ['0300 123 4567', 'GB', '443001234567'],
    // A UK service number is still taken with its country code.
    ['+44 800 123 4567', 'GB', '448001234567'],
    // Bare digits that are a valid number read internationally keep that reading (Egypt, not London).
    ['2034567890', 'GB', '2034567890'],
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
    // Not Mexico's legacy mobile form: what follows "52 1" is no Mexican number.
    ['5211234567890', 'GB'],
  ] as const)('refuses %j in %s', (typed, country) => {
    expect(parseNumberInput(typed, country)).toBeNull();
  });

  it.each([
    ['0412 345 678', 'Australian mobile'],
    ['06 12 34 56 78', 'French mobile'],
    ['06-12345678', 'Dutch mobile'],
    ['030 1234567', 'Berlin'],
    ['087 123 4567', 'Irish mobile'],
    ['0 415 555 0199', 'US number behind a 0'],
    ['07700 901000', 'just past the drama range 07700 900xxx'],
    ['01632 961000', 'just past the drama range 01632 960xxx'],
    ['0115 496 1000', 'just past the drama range 0115 496 0xxx'],
  ])("refuses %j in GB (%s): a national number must be valid in the firm's country", (typed) => {
    expect(parseNumberInput(typed, 'GB')).toBeNull();
  });

  it.each([
    ['0909 879 0000', 'premium rate'],
    ['0845 464 6464', 'shared cost'],
    ['0800 123 4567', 'freephone'],
    ['07640 123456', 'pager'],
  ])('refuses %j in GB typed nationally (%s): no client is reached on a service number', (typed) => {
    expect(parseNumberInput(typed, 'GB')).toBeNull();
  });

  it.each([
    ['2079460001', '442079460001'],
    ['2082123456', '442082123456'],
    ['7700900123', '447700900123'],
  ])("reads bare %s as a number of the firm's country when internationally it is no known number", (typed, digits) => {
    expect(parseNumberInput(typed, 'GB')).toBe(digits);
  });

  it.each([
    ['5215512345678', '5215512345678'],
    ['+52 1 55 1234 5678', '5215512345678'],
    ['00 52 1 222 123 4567', '5212221234567'],
  ])('takes %s, a Mexican mobile as WhatsApp writes it (52 1 + ten digits), as it is', (typed, digits) => {
    expect(parseNumberInput(typed, 'GB')).toBe(digits);
  });

  it("says a refused national number is not one of the firm's country, naming it as a sentence would", () => {
    const asks = 'Enter it with its country code, such as +1 415 555 0199.';
    expect(impossibleNumberMessage('GB', '06 12 34 56 78')).toBe(`That is not a valid number in the United Kingdom. ${asks}`);
    expect(impossibleNumberMessage('US', '555 0199 123')).toBe(`That is not a valid number in the United States. ${asks}`);
    expect(impossibleNumberMessage('NL', '0412 345 678')).toBe(`That is not a valid number in the Netherlands. ${asks}`);
    expect(impossibleNumberMessage('FR', '0412 345 678')).toBe(`That is not a valid number in France. ${asks}`);
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
