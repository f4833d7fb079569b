import { z } from 'zod';
import { ZUserRole } from '../../../shared/communication';
import { listUsers } from '../../services/users';
import { directorProcedure, router } from '../init';

export const usersRouter = router({
  /** Who can sign in: directors only, since it lists every account. */
  list: directorProcedure
    .output(z.array(z.object({ id: z.number(), name: z.string(), email: z.string(), role: ZUserRole, createdAt: z.date() })))
    .query(() => listUsers()),
});
