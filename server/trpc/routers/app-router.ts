import { router } from '../init';
import { authRouter } from './auth-router';
import { casesRouter } from './cases-router';
import { chatRouter } from './chat-router';
import { clientsRouter } from './clients-router';
import { settingsRouter } from './settings-router';
import { timelineRouter } from './timeline-router';
import { usersRouter } from './users-router';

export const appRouter = router({
  auth: authRouter,
  clients: clientsRouter,
  cases: casesRouter,
  timeline: timelineRouter,
  users: usersRouter,
  chat: chatRouter,
  settings: settingsRouter,
});

export type AppRouter = typeof appRouter;
