import { z } from 'zod';
import { hasHiddenCharacters, hiddenCharacterMessage } from '../../shared/visible-text';
import { directorProcedure, router } from '../trpc/init';
import { ZRecordId } from '../trpc/record-id';
import {
  addMember,
  getAccess,
  listPersonWalls,
  removeMember,
  screenPerson,
  setRestricted,
  unscreenPerson,
  type TAccess,
  type TPersonWall,
} from './manage-access';

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

/**
 * Ethical walls (README "Ethical walls"): directors restrict a client or a case to its members and
 * screen people from it. Each change is audited and applies to open pages at once.
 */
export const accessRouter = router({
  get: directorProcedure.input(withSubject({})).query(({ ctx, input }): Promise<TAccess> => getAccess(ctx.reader, subjectOf(input))),

  setRestricted: directorProcedure
    .input(withSubject({ restricted: z.boolean() }))
    .mutation(({ ctx, input }): Promise<TAccess> => setRestricted(ctx.reader, subjectOf(input), input.restricted)),

  addMember: directorProcedure
    .input(withSubject({ userId: ZRecordId }))
    .mutation(({ ctx, input }): Promise<TAccess> => addMember(ctx.reader, subjectOf(input), input.userId)),

  removeMember: directorProcedure
    .input(withSubject({ userId: ZRecordId }))
    .mutation(({ ctx, input }): Promise<TAccess> => removeMember(ctx.reader, subjectOf(input), input.userId)),

  screen: directorProcedure
    .input(withSubject({ userId: ZRecordId, reason: ZReason }))
    .mutation(({ ctx, input }): Promise<TAccess> => screenPerson(ctx.reader, subjectOf(input), input.userId, input.reason)),

  unscreen: directorProcedure
    .input(withSubject({ userId: ZRecordId }))
    .mutation(({ ctx, input }): Promise<TAccess> => unscreenPerson(ctx.reader, subjectOf(input), input.userId)),

  /** One person's screens and memberships (Settings › People), of matters the reader may see. */
  forPerson: directorProcedure
    .input(z.object({ userId: ZRecordId }))
    .query(({ ctx, input }): Promise<{ screens: TPersonWall[]; memberships: TPersonWall[] }> => listPersonWalls(ctx.reader, input.userId)),
});
