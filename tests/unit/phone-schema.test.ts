import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { phoneInput, ZPhoneInput } from '../../shared/phone-schema';
import { ZThreadRef } from '../../server/conversations';
import { ZSendButtonsInput } from '../../server/messaging/chat-router';
import { ZScheduleInput } from '../../server/scheduling/scheduled-inputs';

const TOO_LONG = 'That number is too long — 40 characters at most';
/** 41 characters, none of them spaces the trim would take off. */
const fortyOne = `+44 ${'7'.repeat(37)}`;

/** The messages a schema gives on `field` for `input`. */
function messagesOn(schema: z.ZodType, input: unknown, field: string): string[] {
  const parsed = schema.safeParse(input);
  return parsed.success ? [] : parsed.error.issues.filter((issue) => issue.path[0] === field).map((issue) => issue.message);
}

describe('the phone number an input carries', () => {
  it('is trimmed, and refused empty or over 40 characters, in words a person can act on', () => {
    expect(ZPhoneInput.parse('  +44 7700 900123 ')).toBe('+44 7700 900123');
    expect(ZPhoneInput.safeParse('   ').error?.issues.map((issue) => issue.message)).toEqual(['Enter a phone number']);
    expect(ZPhoneInput.safeParse(fortyOne).error?.issues.map((issue) => issue.message)).toEqual([TOO_LONG]);
    expect(ZPhoneInput.parse(fortyOne.slice(0, 40))).toBe(fortyOne.slice(0, 40));
    // A send to a typed number says so in its own words when it is left empty.
    expect(
      phoneInput('Enter a number')
        .safeParse('')
        .error?.issues.map((issue) => issue.message),
    ).toEqual(['Enter a number']);
  });

  it('is the one schema behind every number field: a send, a scheduled send, a conversation named by its number', () => {
    expect(messagesOn(ZSendButtonsInput, { to: fortyOne }, 'to')).toEqual([TOO_LONG]);
    expect(messagesOn(ZSendButtonsInput, { to: ' ' }, 'to')).toEqual(['Enter a number']);
    expect(messagesOn(ZScheduleInput, { clientId: 1, to: fortyOne, sendAt: new Date() }, 'to')).toEqual([TOO_LONG]);
    expect(ZThreadRef.safeParse({ phone: ` ${fortyOne.slice(0, 40)} ` }).data).toEqual({ phone: fortyOne.slice(0, 40) });
    expect(ZThreadRef.safeParse({ phone: fortyOne }).success).toBe(false);
  });
});
