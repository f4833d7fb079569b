import { z } from 'zod';
import { hasHiddenCharacters, hiddenCharacterMessage } from '../../shared/visible-text';
import { directorProcedure, router, stepUpDirectorProcedure } from '../trpc/init';
import { ZPersonRef } from '../trpc/person-ref';
import { ZRecordId } from '../trpc/record-id';
import { addMember, getAccess, listPersonWalls, removeMember, screenPerson, setRestricted, unscreenPerson } from './manage-access';

/** A client or a case, and what else the call needs. */
const withSubject = <T extends z.ZodRawShape>(shape: T) =>
  z.union([z.object({ clientId: ZRecordId, ...shape }), z.object({ caseId: ZRecordId, ...shape })]);
const subjectOf = (input: { clientId: number } | { caseId: number }) =>
  'clientId' in input ? { clientId: input.clientId } : { caseId: input.caseId };

const ZReason = z
  .string()
  .trim()
  .min(1, 'Say why this person is screened (the conflict, in a few words)')
  .max(500, 'Reason is too long — 500 characters at most')
  .refine((reason) => !hasHiddenCharacters(reason), hiddenCharacterMessage('the reason'));

const ZUserRef = { id: z.number(), name: z.string(), email: z.string(), active: z.boolean() };
/** A client's or a case's wall (TAccess): whether it is restricted, its members and its screens. */
const ZAccess = z.object({
  restricted: z.boolean(),
  members: z.array(z.object({ ...ZUserRef, addedAt: z.date(), addedBy: ZPersonRef.nullable(), screened: z.boolean() })),
  screens: z.array(z.object({ ...ZUserRef, reason: z.string(), addedAt: z.date(), addedBy: ZPersonRef.nullable() })),
});
const ZPersonWall = z.object({
  subjectType: z.enum(['client', 'case']),
  subjectId: z.number(),
  name: z.string(),
  reason: z.string().nullable(),
  addedAt: z.date(),
});

/**
 * Ethical walls (server/access/README.md "Ethical walls"): directors restrict a client or a case to its members and
 * screen people from it. Each change is audited and applies to open pages at once.
 */
export const accessRouter = router({
  get: directorProcedure
    .input(withSubject({}))
    .output(ZAccess)
    .query(({ ctx, input }) => getAccess(ctx.reader, subjectOf(input))),

  setRestricted: stepUpDirectorProcedure
    .input(withSubject({ restricted: z.boolean() }))
    .output(ZAccess)
    .mutation(({ ctx, input }) => setRestricted(ctx.reader, subjectOf(input), input.restricted)),

  addMember: stepUpDirectorProcedure
    .input(withSubject({ userId: ZRecordId }))
    .output(ZAccess)
    .mutation(({ ctx, input }) => addMember(ctx.reader, subjectOf(input), input.userId)),

  removeMember: stepUpDirectorProcedure
    .input(withSubject({ userId: ZRecordId }))
    .output(ZAccess)
    .mutation(({ ctx, input }) => removeMember(ctx.reader, subjectOf(input), input.userId)),

  screen: stepUpDirectorProcedure
    .input(withSubject({ userId: ZRecordId, reason: ZReason }))
    .output(ZAccess)
    .mutation(({ ctx, input }) => screenPerson(ctx.reader, subjectOf(input), input.userId, input.reason)),

  unscreen: stepUpDirectorProcedure
    .input(withSubject({ userId: ZRecordId }))
    .output(ZAccess)
    .mutation(({ ctx, input }) => unscreenPerson(ctx.reader, subjectOf(input), input.userId)),

  /** One person's screens and memberships (Settings › People), of matters the reader may see. */
  forPerson: directorProcedure
    .input(z.object({ userId: ZRecordId }))
    .output(z.object({ screens: z.array(ZPersonWall), memberships: z.array(ZPersonWall) }))
    .query(({ ctx, input }) => listPersonWalls(ctx.reader, input.userId)),
});
