import { z } from 'zod';
import { parsePhoneDigits } from '../../shared/phone';
import { ZPhoneInput } from '../../shared/phone-schema';
import { threadKeyOfRef, type TThreadRef } from '../../shared/thread-key';
import { AppError } from '../core/errors';
import { ZRecordId } from '../trpc/record-id';

export type { TThreadRef };

/** A conversation named in a procedure's input: a client's, or a typed number's. */
export const ZThreadRef = z.union([z.object({ clientId: ZRecordId }), z.object({ phone: ZPhoneInput })]);

/** A typed number's digits, or INVALID_INPUT. */
export function phoneDigitsOf(phone: string): string {
  const digits = parsePhoneDigits(phone);
  if (!digits) throw new AppError('INVALID_INPUT', 'That is not a valid number.');
  return digits;
}

/** The key of the conversation `ref` names, its number read as digits (INVALID_INPUT if it is none). */
export function conversationKeyOf(ref: TThreadRef): string {
  return threadKeyOfRef('clientId' in ref ? ref : { phone: phoneDigitsOf(ref.phone) });
}
