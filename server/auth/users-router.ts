import { z } from 'zod';
import { ZUserRole } from '../../shared/communication';
import { hasHiddenCharacters, hiddenCharacterMessage } from '../../shared/visible-text';
import { directorProcedure, router } from '../trpc/init';
import { ZRecordId } from '../trpc/record-id';
import { addUser, changeUserRole, deactivateUser, listUsers, reactivateUser } from './users';

const ZUser = z.object({
  id: z.number(),
  name: z.string(),
  email: z.string(),
  role: ZUserRole,
  createdAt: z.date(),
  deactivatedAt: z.date().nullable(),
});

const ZAddUserInput = z.object({
  name: z
    .string()
    .trim()
    .min(1, 'Enter a name')
    .max(200, 'Name is too long — 200 characters at most')
    // Controls, zero-width and text-direction characters: invisible in a name, they make it read
    // differently on screen, in the audit trail and in exports, and PostgreSQL cannot store a NUL at all.
    .refine((name) => !hasHiddenCharacters(name), hiddenCharacterMessage('the name')),
  email: z
    .string()
    .trim()
    .toLowerCase()
    .max(320, 'Email is too long — 320 characters at most')
    .pipe(z.email('Enter an email address, such as name@firm.example')),
  role: ZUserRole,
  // Left empty, the server makes one and shows it once.
  password: z.preprocess(
    (value) => (value === '' ? undefined : value),
    z
      .string()
      .min(10, 'Password is too short — 10 characters at least')
      .max(200, 'Password is too long — 200 characters at most')
      // No keyboard types one: a first password nobody can type at sign-in is an account locked out.
      .refine((password) => !password.includes('\u0000'), 'The password has a null character, which no one can type: choose another')
      .optional(),
  ),
});

/**
 * Directors only, every one of them: checked in the middleware, whatever the page shows. A director
 * screened from any matter adds, promotes, demotes and reactivates no one (account-rules.ts); they may
 * still deactivate someone, which takes nobody across a wall.
 */
export const usersRouter = router({
  /** Who can sign in (and who no longer can): it lists every account. */
  list: directorProcedure.output(z.array(ZUser)).query(() => listUsers()),

  add: directorProcedure
    .input(ZAddUserInput)
    .output(z.object({ user: ZUser, generatedPassword: z.string().nullable() }))
    .mutation(({ ctx, input }) => addUser(input, { userId: ctx.user.id, ip: ctx.clientIp })),

  changeRole: directorProcedure
    .input(z.object({ userId: ZRecordId, role: ZUserRole }))
    .output(ZUser)
    .mutation(({ ctx, input }) => changeUserRole(input, { userId: ctx.user.id, ip: ctx.clientIp })),

  deactivate: directorProcedure
    .input(z.object({ userId: ZRecordId }))
    .output(ZUser)
    .mutation(({ ctx, input }) => deactivateUser(input, { userId: ctx.user.id, ip: ctx.clientIp })),

  /** Undoes a deactivation; the person's email is theirs again. */
  reactivate: directorProcedure
    .input(z.object({ userId: ZRecordId }))
    .output(ZUser)
    .mutation(({ ctx, input }) => reactivateUser(input, { userId: ctx.user.id, ip: ctx.clientIp })),
});
