import { router } from '../init';
import { auditRouter } from './audit-router';
import { authRouter } from './auth-router';
import { casesRouter } from './cases-router';
import { chatRouter } from './chat-router';
import { clientsRouter } from './clients-router';
import { inboxRouter } from './inbox-router';
import { settingsRouter } from './settings-router';
import { timelineRouter } from './timeline-router';
import { usersRouter } from './users-router';

export const appRouter = router({
  auth: authRouter,
  audit: auditRouter,
  clients: clientsRouter,
  cases: casesRouter,
  timeline: timelineRouter,
  users: usersRouter,
  chat: chatRouter,
  inbox: inboxRouter,
  settings: settingsRouter,
});

export type AppRouter = typeof appRouter;
