import { z } from 'zod';

/** The longest number a person may type (spaces, dashes and brackets included). */
export const PHONE_INPUT_MAX = 40;

/**
 * A phone number as an input carries it — typed by a person, or stored digits the app handed out:
 * trimmed, not empty, at most PHONE_INPUT_MAX characters. Whether it can be a number at all
 * depends on the firm's country (configuration), so that is read beside the schema, on the server
 * (server/core/phone-input.ts). `empty`: what the field says when it is left empty.
 */
export const phoneInput = (empty = 'Enter a phone number') =>
  z.string().trim().min(1, empty).max(PHONE_INPUT_MAX, `That number is too long — ${PHONE_INPUT_MAX} characters at most`);

export const ZPhoneInput = phoneInput();
