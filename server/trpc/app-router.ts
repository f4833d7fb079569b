import { accessRouter } from '../access/access-router';
import { auditRouter } from '../audit/audit-router';
import { authRouter } from '../auth/auth-router';
import { casesRouter } from '../crm/cases-router';
import { chatRouter } from '../messaging/chat-router';
import { clientsRouter } from '../crm/clients-router';
import { inboxRouter } from '../inbox/inbox-router';
import { notificationsRouter } from '../notifications/notifications-router';
import { businessHoursRouter } from '../business-hours/business-hours-router';
import { settingsRouter } from '../settings/settings-router';
import { timelineRouter } from '../crm/timeline-router';
import { usersRouter } from '../auth/users-router';
import { erasureRouter } from '../records/erasure-router';
import { holdsRouter } from '../records/holds-router';
import { retentionRouter } from '../records/retention-router';
import { scheduledSendsRouter } from '../scheduling/scheduled-sends-router';
import { mergeRouters, router } from './init';

export const appRouter = router({
  access: accessRouter,
  auth: authRouter,
  audit: auditRouter,
  clients: clientsRouter,
  cases: casesRouter,
  timeline: timelineRouter,
  users: usersRouter,
  chat: mergeRouters(chatRouter, scheduledSendsRouter),
  inbox: inboxRouter,
  notifications: notificationsRouter,
  settings: mergeRouters(settingsRouter, businessHoursRouter),
  holds: holdsRouter,
  retention: retentionRouter,
  erasure: erasureRouter,
});

export type AppRouter = typeof appRouter;
