import { z } from 'zod';
import { SESSION_METHODS } from '../../shared/session-methods';

/** A session as `auth.sessions` and `users.sessions` answer it. */
export const ZSessionItem = z.object({
  id: z.string(),
  createdAt: z.date(),
  lastSeenAt: z.date(),
  ip: z.string().nullable(),
  userAgent: z.string().nullable(),
  method: z.enum(SESSION_METHODS),
  current: z.boolean(),
});

/** A session's public id, as the lists give it. */
export const ZSessionPublicId = z.uuid('That is not a session id: pick a session from the list.');
