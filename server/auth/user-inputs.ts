import { z } from 'zod';
import { ZUserRole } from '../../shared/communication';
import { hasHiddenCharacters, hiddenCharacterMessage } from '../../shared/visible-text';

// The shapes of accounts the procedures take and give: one rule for a name, an email and a password,
// whether a director adds someone, invites them, or the person accepts.

export const ZUser = z.object({
  id: z.number(),
  name: z.string(),
  email: z.string(),
  role: ZUserRole,
  createdAt: z.date(),
  deactivatedAt: z.date().nullable(),
});

/** A password someone chooses: the app's one rule for it (users.add, accepting an invitation). */
export const ZNewPassword = z
  .string()
  .min(10, 'Password is too short — 10 characters at least')
  .max(200, 'Password is too long — 200 characters at most')
  // No keyboard types one: a first password nobody can type at sign-in is an account locked out.
  .refine((password) => !password.includes('\u0000'), 'The password has a null character, which no one can type: choose another');

export const ZAddUserInput = z.object({
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
  password: z.preprocess((value) => (value === '' ? undefined : value), ZNewPassword.optional()),
});
