import { parsePhoneNumberFromString, type CountryCode, type NumberType, type PhoneNumber } from 'libphonenumber-js/max';
import { PHONE_INPUT_MAX } from '../../shared/phone-schema';
import { AppError } from './errors';

// A number typed by a person becomes E.164 digits (no "+"), the form numbers are stored, matched
// and sent in. "+" or "00" starts an international number; a leading "0" is a national number in
// the firm's country; bare digits are read as international when that is a valid number, else as
// national when that is one, else as international when that is a possible number; a Mexican
// mobile as WhatsApp writes it (52 1 + ten digits) is taken as written. Other numbers are refused.
//
// The "max" metadata, not "min": with "min", isValid() is looser than the number plans and getType()
// knows no types, and both decide whether a national reading is a number of the firm's country.
// This module runs on the server only; the browser formats with its own, smaller, import.

const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });

/**
 * The kinds of number a client is reached on. Freephone, premium-rate and shared-cost numbers are
 * services (the service sets the tariff), pagers and voicemail take no chat: typed nationally, such a
 * number is likelier another country's typed with its own leading 0 (many Brazilian, Indian and
 * German numbers read as UK 08 and 09 numbers) than a client's; typed with +44 it is still taken.
 */
const REACHABLE_TYPES: ReadonlySet<NumberType> = new Set([
  'MOBILE',
  'FIXED_LINE',
  'FIXED_LINE_OR_MOBILE',
  'VOIP',
  'PERSONAL_NUMBER',
  'UAN',
]);

/**
 * Ofcom's numbers reserved for drama that libphonenumber does not find valid: 07700 900xxx (the
 * firm's demo and test numbers), 01632 960xxx and 0115 496 0xxx. The other drama ranges (020 7946
 * 0xxx and the rest) are valid numbers already; nothing else that is merely possible is taken.
 */
const UNPLACED_DRAMA_NUMBER = /^44(?:7700900|1632960|1154960)\d{3}$/;

/**
 * A valid number (by the country's number plan), or a possible one (right length) — the firm's
 * test and demo numbers, 07700 900xxx, are reserved for drama and not "valid" — unless its national
 * part still starts with 0: then the national prefix could not be taken off because what followed it
 * fits no number of that country ("07700 12" became +44 0770012).
 */
function isAcceptable(parsed: PhoneNumber): boolean {
  if (parsed.isValid()) return true;
  return parsed.isPossible() && !parsed.nationalNumber.startsWith('0');
}

/**
 * A number read in the firm's country: valid there and of a kind a client is reached on, or a drama
 * number libphonenumber does not place. Merely the right length is not enough, with or without the
 * leading 0: "06 12 34 56 78" (a French mobile), "0412 345 678" (an Australian one) and "(415)
 * 555-0199" are possible UK numbers, and stored under +44 they would send to a stranger. Valid means
 * valid for the calling code, so Jersey, Guernsey and Isle of Man numbers count for a UK firm, as
 * they are dialled the same way.
 */
function isAcceptableNational(parsed: PhoneNumber): boolean {
  if (UNPLACED_DRAMA_NUMBER.test(parsed.number.slice(1))) return true;
  return parsed.isValid() && REACHABLE_TYPES.has(parsed.getType());
}

/**
 * A Mexican mobile as WhatsApp writes it, 52 1 + ten digits. Mexico dropped the 1 in 2019 and
 * libphonenumber no longer places such a number, but it is the number the provider reports a Mexican
 * sender by, and the one their conversation is filed under: a reply must go to it as written. Only
 * when the ten digits are a valid Mexican number; other digits libphonenumber cannot place stay
 * refused, since with any known calling code almost any digits would pass ("4155550199", a US number
 * without its 1, would be Swiss).
 */
function readMexicanMobileAsWritten(digits: string): string | null {
  if (!/^521\d{10}$/.test(digits)) return null;
  return parsePhoneNumberFromString(`+52${digits.slice(3)}`)?.isValid() ? digits : null;
}

/** E.164 digits of an acceptable number, or null. */
export function parseNumberInput(input: string, defaultCountry: CountryCode | undefined): string | null {
  const text = input.trim().replace(/^00/, '+');
  if (!/^\+?[\d\s\-().\u00a0]+$/.test(text)) return null;
  const readNational = () => {
    const parsed = parsePhoneNumberFromString(text, defaultCountry);
    return parsed && isAcceptableNational(parsed) ? parsed : null;
  };
  if (text.startsWith('0')) return readNational()?.number.slice(1) ?? null;
  const international = parsePhoneNumberFromString(text.startsWith('+') ? text : `+${text}`);
  let parsed: PhoneNumber | null = null;
  if (text.startsWith('+')) {
    parsed = international && isAcceptable(international) ? international : null;
  } else if (international?.isValid()) {
    // Bare digits are also the provider's and this app's own form (a reply to an unlinked number is
    // sent to the digits stored): a valid international reading is kept, even when the digits are a
    // number of the firm's country too ("2034567890" stays Egyptian), or such a reply could be
    // rerouted to a stranger at home.
    parsed = international;
  } else {
    // Merely the right length internationally, the digits are likelier a number of the firm's
    // country typed without its 0 ("2079460001": London, not +20 79460001, no Egyptian number the
    // library knows) when they are one.
    parsed = readNational() ?? (international && isAcceptable(international) ? international : null);
  }
  return parsed ? parsed.number.slice(1) : readMexicanMobileAsWritten(text.replace(/\D/g, ''));
}

/** What a person should type, naming the firm's country when national numbers are read in it. */
export function numberFormatHint(defaultCountry: CountryCode | undefined): string {
  const national = defaultCountry ? `, or as a national number (${regionNames.of(defaultCountry) ?? defaultCountry})` : '';
  return `Enter it with its country code, such as +44 7700 900123${national}.`;
}

/** "the United Kingdom", "France": a country's English name as it reads after "in". */
function nameInSentence(country: CountryCode): string {
  const name = regionNames.of(country) ?? country;
  const takesThe = /^United |Republic$|Islands$|^(Bahamas|Comoros|Gambia|Maldives|Netherlands|Philippines|Seychelles)$/.test(name);
  return takesThe ? `the ${name}` : name;
}

/**
 * What a person reads when a number cannot be a phone number, with the format expected. A national
 * number long enough to be a phone number but not one of the firm's country is most likely another
 * country's typed without its code: the sentence says so.
 */
export function impossibleNumberMessage(defaultCountry: CountryCode | undefined, input?: string): string {
  const text = input?.trim() ?? '';
  const national = text !== '' && !text.startsWith('+') && !text.startsWith('00') && text.replace(/\D/g, '').length >= 7;
  if (defaultCountry && national) {
    return `That is not a valid number in ${nameInSentence(defaultCountry)}. Enter it with its country code, such as +1 415 555 0199.`;
  }
  return `That is not a possible phone number. ${numberFormatHint(defaultCountry)}`;
}

/** parseNumberInput, or an INVALID_INPUT error on `field` that says which format is expected. */
export function requireNumberInput(input: string, defaultCountry: CountryCode | undefined, field = 'phone'): string {
  const digits = parseNumberInput(input, defaultCountry);
  if (digits) return digits;
  const hint = impossibleNumberMessage(defaultCountry, input);
  throw new AppError('INVALID_INPUT', hint, { [field]: [hint] });
}

/**
 * The number fields of a raw input that are typed but cannot be phone numbers. Whether one can
 * depends on the firm's country (configuration, not the schema), so this runs beside the input
 * schema rather than in it; fields the schema refuses on its own (empty, too long) are its to report.
 */
export function impossibleNumberFields(
  input: unknown,
  fields: readonly string[],
  defaultCountry: CountryCode | undefined,
): { path: string[]; message: string }[] {
  if (typeof input !== 'object' || input === null) return [];
  return fields.flatMap((field) => {
    const value = (input as Record<string, unknown>)[field];
    if (typeof value !== 'string' || value.trim() === '' || value.trim().length > PHONE_INPUT_MAX) return [];
    return parseNumberInput(value, defaultCountry) ? [] : [{ path: [field], message: impossibleNumberMessage(defaultCountry, value) }];
  });
}

/** "+44 7700 900123" for stored digits (as entered when libphonenumber cannot format it). */
export function formatNumber(digits: string): string {
  return parsePhoneNumberFromString(`+${digits}`)?.formatInternational() ?? `+${digits}`;
}
