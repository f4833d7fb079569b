import { z } from 'zod';
import { hasHiddenCharacters, hiddenCharacterMessage } from '../../shared/visible-text';
import { ZRecordId } from '../trpc/record-id';
import type { TSessionUser } from '../auth';
import type { TContextInner } from '../trpc/context';
import { impossibleNumberFields, PHONE_INPUT_MAX } from '../core/phone-input';
import { authedProcedure, checkInputTogether, directorProcedure, router } from '../trpc/init';
import { assertSubjectVisible } from '../access';
import type { TReader } from '../core/visibility';
import { setClientResponsible, type TPersonRef } from '../ownership';
import { ZHoldNotice } from './hold-notice';
import { clearOptOut } from './opt-outs';
import { addClientNumber, createClient, getClient, listClients, removeClientNumber, type TNumberContext } from './clients';

const ZClientNumber = z.object({
  digits: z.string(),
  primary: z.boolean(),
  linked: z.boolean(),
  addedAt: z.date(),
  addedBy: z.object({ id: z.number(), name: z.string() }).nullable(),
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
  responsible: z.object({ id: z.number(), name: z.string() }).nullable(),
  hold: ZHoldNotice.nullable(),
  erasedAt: z.date().nullable(),
});
const ZPhone = z
  .string()
  .trim()
  .min(1, 'Enter a phone number')
  .max(PHONE_INPUT_MAX, `That number is too long — ${PHONE_INPUT_MAX} characters at most`);

const ZNewClient = z.object({
  name: z
    .string()
    .trim()
    .min(1, "Enter the client's name")
    .max(200, 'Name is too long — 200 characters at most')
    // A character nobody sees makes two clients that look alike differ, or turns a name around; and
    // PostgreSQL cannot hold a NUL at all (it was stored as the two characters `\0`).
    .refine((name) => !hasHiddenCharacters(name), hiddenCharacterMessage('the name')),
  phone: ZPhone,
  email: z
    .email('Enter an email address such as name@example.com, or leave it empty')
    .max(320, 'Email is too long — 320 characters at most')
    .nullish(),
  confirm: z.boolean().optional(),
});
const ZNewNumber = z.object({ clientId: ZRecordId, phone: ZPhone, confirm: z.boolean().optional() });

/** Whether the phone field can be a number, checked with the schema's rules so all come back at once. */
const withPossibleNumber = (schema: z.ZodType) =>
  checkInputTogether(schema, (input, ctx) => impossibleNumberFields(input, ['phone'], ctx.deps.config.defaultCountry));

/** Where national numbers are read and who is acting: what every number-taking call needs. */
export const numberContextOf = (ctx: TContextInner & { user: TSessionUser; reader: TReader }): TNumberContext => ({
  defaultCountry: ctx.deps.config.defaultCountry,
  actor: { userId: ctx.user.id, ip: ctx.clientIp },
  reader: ctx.reader,
});

export const clientsRouter = router({
  list: authedProcedure
    .input(z.object({ search: z.string().max(200).optional() }).optional())
    .output(z.array(ZClient))
    .query(({ ctx, input }) => listClients(ctx.reader, input?.search, ctx.deps.config.defaultCountry)),

  get: authedProcedure
    .input(z.object({ clientId: ZRecordId }))
    .output(ZClient)
    .query(({ ctx, input }) => getClient(ctx.reader, input.clientId)),

  /** `confirm`: a person has seen that another client has this number and adds it anyway. */
  create: authedProcedure
    .use(withPossibleNumber(ZNewClient))
    .input(ZNewClient)
    .output(ZClient)
    .mutation(({ ctx, input }) => createClient(input, numberContextOf(ctx))),

  addNumber: authedProcedure
    .use(withPossibleNumber(ZNewNumber))
    .input(ZNewNumber)
    .output(ZClient)
    .mutation(({ ctx, input }) => addClientNumber(input, numberContextOf(ctx))),

  /** A director clears an opt-out by hand (the client asked to resume another way). */
  clearOptOut: directorProcedure
    .input(z.object({ clientId: ZRecordId }))
    .output(ZClient)
    .mutation(async ({ ctx, input }) => {
      await assertSubjectVisible(ctx.reader, { clientId: input.clientId });
      await clearOptOut(input.clientId, { userId: ctx.user.id, ip: ctx.clientIp });
      return getClient(ctx.reader, input.clientId);
    }),

  /** Who is given the client's conversation when it first needs someone (README "Ownership"); null: nobody. */
  setResponsible: authedProcedure
    .input(z.object({ clientId: ZRecordId, userId: ZRecordId.nullable() }))
    .mutation(({ ctx, input }): Promise<{ responsible: TPersonRef | null }> =>
      setClientResponsible(ctx.reader, input.clientId, input.userId),
    ),

  removeNumber: authedProcedure
    .input(z.object({ clientId: ZRecordId, phone: ZPhone }))
    .output(ZClient)
    .mutation(({ ctx, input }) => removeClientNumber(input, numberContextOf(ctx))),
});
