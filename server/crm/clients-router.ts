import { z } from 'zod';
import type { CountryCode } from 'libphonenumber-js/min';
import { ZPhoneInput } from '../../shared/phone-schema';
import { hasHiddenCharacters, hiddenCharacterMessage } from '../../shared/visible-text';
import { ZPersonRef } from '../trpc/person-ref';
import { ZRecordId } from '../trpc/record-id';
import type { TConfig } from '../core/config';
import type { TContext, TSessionUser } from '../trpc/context';
import { impossibleNumberFields } from '../core/phone-input';
import { authedProcedure, checkInputTogether, directorProcedure, router } from '../trpc/init';
import { assertSubjectVisible } from '../access';
import type { TReader } from '../core/visibility';
import { setClientResponsible } from '../ownership';
import { clearOptOut } from '../opt-outs';
import { assertClientWritable } from '../core/client-writable';
import { ZClientErasure } from './erased-client';
import { ZHoldNotice } from './hold-notice';
import { addClientNumber, createClient, getClient, listClients, removeClientNumber, type TNumberContext } from './clients';

const ZClientNumber = z.object({
  digits: z.string(),
  primary: z.boolean(),
  linked: z.boolean(),
  addedAt: z.date(),
  addedBy: ZPersonRef.nullable(),
});
const ZClient = z.object({
  id: z.number(),
  name: z.string(),
  phone: z.string(),
  email: z.string().nullable(),
  numbers: z.array(ZClientNumber),
  optedOutAt: z.date().nullable(),
  optOutSource: z.string().nullable(),
  restricted: z.boolean(),
  responsible: ZPersonRef.nullable(),
  hold: ZHoldNotice.nullable(),
  erasedAt: z.date().nullable(),
  erasure: ZClientErasure.nullable(),
});
const ZNewClient = z.object({
  name: z
    .string()
    .trim()
    .min(1, "Enter the client's name")
    .max(200, 'Name is too long — 200 characters at most')
    // A character nobody sees makes two clients that look alike differ, or turns a name around; and
    // PostgreSQL cannot hold a NUL at all (it was stored as the two characters `\0`).
    .refine((name) => !hasHiddenCharacters(name), hiddenCharacterMessage('the name')),
  phone: ZPhoneInput,
  email: z
    .email('Enter an email address such as name@example.com, or leave it empty')
    .max(320, 'Email is too long — 320 characters at most')
    .nullish(),
  confirm: z.boolean().optional(),
});
const ZNewNumber = z.object({ clientId: ZRecordId, phone: ZPhoneInput, confirm: z.boolean().optional() });

/** Whether the phone field can be a number (read in `defaultCountry`), checked with the schema's rules so all come back at once. */
const withPossibleNumber = (schema: z.ZodType, defaultCountry: CountryCode | undefined) =>
  checkInputTogether(schema, (input) => impossibleNumberFields(input, ['phone'], defaultCountry));

/** Where national numbers are read and who is acting: what every number-taking call needs. */
const numberContextOf = (
  ctx: TContext & { user: TSessionUser; reader: TReader },
  defaultCountry: CountryCode | undefined,
): TNumberContext => ({
  defaultCountry,
  actor: { userId: ctx.user.id, ip: ctx.clientIp },
  reader: ctx.reader,
});

export function createClientsRouter(deps: { config: Pick<TConfig, 'defaultCountry'> }) {
  return router({
    list: authedProcedure
      // `erased`: only the erased clients (the Clients page's Erased filter); without it they are left out.
      .input(z.object({ search: z.string().max(200).optional(), erased: z.boolean().optional() }).optional())
      .output(z.array(ZClient))
      .query(({ ctx, input }) => listClients(ctx.reader, input?.search, deps.config.defaultCountry, { erased: input?.erased })),

    get: authedProcedure
      .input(z.object({ clientId: ZRecordId }))
      .output(ZClient)
      .query(({ ctx, input }) => getClient(ctx.reader, input.clientId)),

    /** `confirm`: a person has seen that another client has this number and adds it anyway. */
    create: authedProcedure
      .use(withPossibleNumber(ZNewClient, deps.config.defaultCountry))
      .input(ZNewClient)
      .output(ZClient)
      .mutation(({ ctx, input }) => createClient(input, numberContextOf(ctx, deps.config.defaultCountry))),

    addNumber: authedProcedure
      .use(withPossibleNumber(ZNewNumber, deps.config.defaultCountry))
      .input(ZNewNumber)
      .output(ZClient)
      .mutation(({ ctx, input }) => addClientNumber(input, numberContextOf(ctx, deps.config.defaultCountry))),

    /** A director clears an opt-out by hand (the client asked to resume another way). */
    clearOptOut: directorProcedure
      .input(z.object({ clientId: ZRecordId }))
      .output(ZClient)
      .mutation(async ({ ctx, input }) => {
        await assertSubjectVisible(ctx.reader, { clientId: input.clientId });
        await assertClientWritable(input.clientId);
        await clearOptOut(input.clientId, { userId: ctx.user.id, ip: ctx.clientIp });
        return getClient(ctx.reader, input.clientId);
      }),

    /** Who is given the client's conversation when it first needs someone (server/ownership/README.md "Ownership"); null: nobody. */
    setResponsible: authedProcedure
      .input(z.object({ clientId: ZRecordId, userId: ZRecordId.nullable() }))
      .output(z.object({ responsible: ZPersonRef.nullable() }))
      .mutation(async ({ ctx, input }) => {
        await assertSubjectVisible(ctx.reader, { clientId: input.clientId });
        await assertClientWritable(input.clientId);
        return setClientResponsible(ctx.reader, input.clientId, input.userId);
      }),

    removeNumber: authedProcedure
      .input(z.object({ clientId: ZRecordId, phone: ZPhoneInput }))
      .output(ZClient)
      .mutation(({ ctx, input }) => removeClientNumber(input, numberContextOf(ctx, deps.config.defaultCountry))),
  });
}
