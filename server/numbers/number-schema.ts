import { z } from 'zod';
import { ZPhoneInput } from '../../shared/phone-schema';
import { UNSHOWABLE } from '../../shared/visible-text';
import { ZRecordId } from '../trpc/record-id';

// What a firm number is to the people who use it (server/numbers/README.md "Several numbers"). Its
// provider key and webhook secret go in and never come out: the list says only whether it has them.

export const LABEL_MAX = 60;

// A label is shown beside every message: no control characters or direction overrides (which can make it read as another).
const ZLabel = z
  .string()
  .trim()
  .min(1, 'Give the number a label')
  .max(LABEL_MAX, `A label can be at most ${LABEL_MAX} characters`)
  .refine((label) => !new RegExp(UNSHOWABLE.source, 'u').test(label), 'A label cannot hold control or direction characters');
// A key goes into an HTTP header: printable characters only, so a pasted line break is refused here, not at the provider.
const ZApiKey = z
  .string()
  .trim()
  .min(1, 'Paste the provider key of this number')
  .min(8, 'That is too short for a provider key')
  .max(512)
  .regex(/^[\x21-\x7e]+$/, 'A provider key is letters, digits and punctuation, with no spaces or line breaks');
const ZWebhookSecret = z.string().trim().min(16, 'A webhook secret has at least 16 characters').max(512);
const ZPhoneNumberId = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'The provider’s id of the number: letters, digits, dots, dashes');

export const ZFirmNumber = z.object({
  id: z.number(),
  /** E.164 digits ('' for number 1 until FIRM_PHONE is read at start). */
  phone: z.string(),
  label: z.string(),
  phoneNumberId: z.string().nullable(),
  active: z.boolean(),
  /** Number 1: its phone, key and secret are the configuration's (FIRM_PHONE, MESSAGING_API_KEY, MESSAGING_WEBHOOK_SECRET). */
  configured: z.boolean(),
  hasOwnKey: z.boolean(),
  hasOwnWebhookSecret: z.boolean(),
});
export type TFirmNumber = z.infer<typeof ZFirmNumber>;

export const ZAddNumberInput = z.object({
  phone: ZPhoneInput,
  label: ZLabel,
  apiKey: ZApiKey,
  webhookSecret: ZWebhookSecret.optional(),
  phoneNumberId: ZPhoneNumberId.optional(),
});
export type TAddNumberInput = z.infer<typeof ZAddNumberInput>;

/** Only what is given changes; an empty `phoneNumberId` forgets it. */
export const ZUpdateNumberInput = z.object({
  id: ZRecordId,
  label: ZLabel.optional(),
  apiKey: ZApiKey.optional(),
  webhookSecret: ZWebhookSecret.optional(),
  phoneNumberId: z.union([ZPhoneNumberId, z.literal('')]).optional(),
});
export type TUpdateNumberInput = z.infer<typeof ZUpdateNumberInput>;

export const ZNumberIdInput = z.object({ id: ZRecordId });
