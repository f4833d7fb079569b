import { parsePhoneNumberFromString, type CountryCode, type PhoneNumber } from 'libphonenumber-js/min';
import { AppError } from '../errors';

// A number typed by a person becomes E.164 digits (no "+"), the form numbers are stored, matched
// and sent in. "+" or "00" starts an international number; a leading "0" is a national number in
// the firm's country; bare digits are read as international (as the provider and this app write
// them) when that is a possible number, else as national. Impossible numbers are refused.

const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });

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
 * A number read in the firm's country: valid there, or typed with its national prefix ("07700
 * 900123", a reserved drama number, is possible but not valid). Without the prefix and not valid
 * ("(415) 555-0199" in the UK), it is most likely another country's number typed without its code:
 * storing it under the firm's code would send to a stranger, so it is refused.
 */
function isAcceptableNational(parsed: PhoneNumber, typed: string): boolean {
  if (parsed.isValid()) return true;
  return isAcceptable(parsed) && typed.replace(/\D/g, '').startsWith('0');
}

/** E.164 digits of an acceptable number, or null. */
export function parseNumberInput(input: string, defaultCountry: CountryCode | undefined): string | null {
  const text = input.trim().replace(/^00/, '+');
  if (!/^\+?[\d\s\-().\u00a0]+$/.test(text)) return null;
  const international = (candidate: string) => {
    const parsed = parsePhoneNumberFromString(candidate);
    return parsed && isAcceptable(parsed) ? parsed : null;
  };
  const national = (candidate: string) => {
    const parsed = parsePhoneNumberFromString(candidate, defaultCountry);
    return parsed && isAcceptableNational(parsed, candidate) ? parsed : null;
  };
  const digitsOnly = !text.startsWith('+') && !text.startsWith('0');
  const parsed = text.startsWith('+') ? international(text) : digitsOnly ? (international(`+${text}`) ?? national(text)) : national(text);
  return parsed ? parsed.number.slice(1) : null;
}

/** What a person should type, naming the firm's country when national numbers are read in it. */
export function numberFormatHint(defaultCountry: CountryCode | undefined): string {
  const national = defaultCountry ? `, or as a national number (${regionNames.of(defaultCountry) ?? defaultCountry})` : '';
  return `Enter it with its country code, such as +44 7700 900123${national}.`;
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
    return `That is not a valid number in ${regionNames.of(defaultCountry) ?? defaultCountry}. Enter it with its country code, such as +1 415 555 0199.`;
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

/** The longest number a person may type (spaces, dashes and brackets included). */
export const PHONE_INPUT_MAX = 40;

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
