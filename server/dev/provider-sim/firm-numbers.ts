import { FIRM_DIGITS, type TSimState, type TSimTemplate, type TSimulatorOptions } from './sim-state';

// The firm's business numbers, as a BSP serves them: one API key per number, so the key on a request
// says which number it is about; each posts under its own metadata and secret. Number 1 is the
// top-level options (apiKey, FIRM_DIGITS, 'SIM'); the others are `options.numbers`.

/** One of the firm's numbers as the simulator uses it; `apiKey` null: a number it does not serve. */
export type TFirmNumber = {
  apiKey: string | null;
  digits: string;
  phoneNumberId: string;
  /** What its posts are signed with: its own secret, else number 1's (none: unsigned). */
  secret: string | undefined;
  /** Its own catalogue, else the shared one (undefined: the default catalogue). */
  templates: TSimTemplate[] | undefined;
};

/** The phone_number_id announced for a number the simulator does not serve (a foreign number's post). */
export const FOREIGN_PHONE_NUMBER_ID = 'FOREIGN';

/** Every number served, number 1 first; read from the options each time, so a change (`configure`) shows at once. */
export function firmNumbers(options: TSimulatorOptions): TFirmNumber[] {
  const first: TFirmNumber = {
    apiKey: options.apiKey,
    digits: FIRM_DIGITS,
    phoneNumberId: 'SIM',
    secret: options.webhookSecret,
    templates: options.templates,
  };
  const others = (options.numbers ?? []).map((n) => ({
    apiKey: n.apiKey,
    digits: n.digits,
    phoneNumberId: n.phoneNumberId,
    secret: n.webhookSecret ?? options.webhookSecret,
    templates: n.templates ?? options.templates,
  }));
  return [first, ...others];
}

/** The number a request's `PROVIDER-API-KEY` belongs to; null for a missing or unknown key. */
export function numberForKey(options: TSimulatorOptions, apiKey: string | undefined): TFirmNumber | null {
  if (apiKey === undefined) return null;
  return firmNumbers(options).find((n) => n.apiKey === apiKey) ?? null;
}

/**
 * The number with these digits (none given: number 1). Digits the simulator does not serve make a
 * foreign number ('FOREIGN', signed as number 1), so a test can post what was meant for another firm.
 */
export function numberForDigits(options: TSimulatorOptions, digits?: string): TFirmNumber {
  const all = firmNumbers(options);
  if (digits === undefined) return all[0]!;
  return (
    all.find((n) => n.digits === digits) ?? {
      apiKey: null,
      digits,
      phoneNumberId: FOREIGN_PHONE_NUMBER_ID,
      secret: options.webhookSecret,
      templates: undefined,
    }
  );
}

/** The number a message went from or came to (number 1 for an id the simulator never saw). */
export function numberOfMessage(state: TSimState, messageId: string): TFirmNumber {
  return numberForDigits(state.options, state.messages.get(messageId)?.firm);
}

/** The `metadata` of a webhook change about this number. */
export function metadataOf(number: TFirmNumber): { display_phone_number: string; phone_number_id: string } {
  return { display_phone_number: number.digits, phone_number_id: number.phoneNumberId };
}

/** Throws when two numbers share a key, digits or id, or a number's digits are not 8-15 digits: requests would be ambiguous. */
export function checkFirmNumbers(options: TSimulatorOptions): void {
  const all = firmNumbers(options);
  for (const field of ['apiKey', 'digits', 'phoneNumberId'] as const) {
    const values = all.map((n) => n[field]);
    if (new Set(values).size !== values.length) throw new RangeError(`the firm's numbers must each have their own ${field}`);
  }
  const bad = all.find((n) => !/^\d{8,15}$/.test(n.digits));
  if (bad) throw new RangeError(`a number's digits must be 8-15 digits, no +: ${bad.digits}`);
}
