import { router } from '../init';
import { authRouter } from './auth-router';
import { casesRouter } from './cases-router';
import { clientsRouter } from './clients-router';
import { timelineRouter } from './timeline-router';
import { usersRouter } from './users-router';

export const appRouter = router({
  auth: authRouter,
  clients: clientsRouter,
  cases: casesRouter,
  timeline: timelineRouter,
  users: usersRouter,
});

export type AppRouter = typeof appRouter;
