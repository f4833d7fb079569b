import { accessRouter } from '../access/access-router';
import { createAuditRouter } from '../audit/audit-router';
import { createAcceptInviteRouter } from '../auth/accept-invite-router';
import { createAuthRouter } from '../auth/auth-router';
import { createInvitationsRouter } from '../auth/invitations-router';
import { createMfaRouter } from '../auth/mfa-router';
import { createPasskeysRouter } from '../auth/passkeys-router';
import { createStepUpRouter } from '../auth/step-up-router';
import { usersRouter } from '../auth/users-router';
import { createUserSessionsRouter } from '../auth/user-sessions-router';
import { createBusinessHoursRouter } from '../business-hours/business-hours-router';
import { casesRouter } from '../crm/cases-router';
import { createClientsRouter } from '../crm/clients-router';
import { timelineRouter } from '../crm/timeline-router';
import { createInboxRouter } from '../inbox/inbox-router';
import { createLiveRouter } from '../live/live-router';
import { createChatRouter } from '../messaging/chat-router';
import { notificationsRouter } from '../notifications/notifications-router';
import { createNumbersRouter } from '../numbers/numbers-router';
import { createImportsRouter } from '../imports/imports-router';
import { createOwnershipRouter } from '../ownership/ownership-router';
import { erasureRouter } from '../records/erasure-router';
import { holdsRouter } from '../records/holds-router';
import { createRetentionRouter } from '../records/retention-router';
import { createScheduledSendsRouter } from '../scheduling/scheduled-sends-router';
import { createSettingsRouter } from '../settings/settings-router';
import { mergeRouters, router } from '../trpc/init';
import { wordingRouter } from '../wording/wording-router';
import type { TAppDeps } from './app-deps';

/**
 * Every feature's procedures under the names the SPA calls. A router that needs something beyond
 * the request is made here with just that; several features share a name (`chat`, `inbox`,
 * `settings`) by merging their routers, so moving a procedure between features renames nothing.
 */
export function createAppRouter(deps: TAppDeps) {
  const { config, logger, now } = deps;
  const send = { events: deps.events, provider: deps.provider, providerFor: deps.providerFor, config, mediaStore: deps.mediaStore, logger };
  return router({
    access: accessRouter,
    auth: mergeRouters(
      createAuthRouter({
        signInLimiter: deps.signInLimiter,
        sessionSecret: config.sessionSecret,
        now,
        signingKeyFile: config.signingKeyFile,
      }),
      router({ mfa: createMfaRouter({ sessionSecret: config.sessionSecret, now, signingKeyFile: config.signingKeyFile }) }),
      createStepUpRouter({
        signInLimiter: deps.signInLimiter,
        sessionSecret: config.sessionSecret,
        now,
        signingKeyFile: config.signingKeyFile,
      }),
      createAcceptInviteRouter({ signInLimiter: deps.signInLimiter, sessionSecret: config.sessionSecret, now }),
      router({
        passkeys: createPasskeysRouter({
          signInLimiter: deps.signInLimiter,
          sessionSecret: config.sessionSecret,
          now,
          siteUrl: config.siteUrl,
        }),
      }),
    ),
    audit: createAuditRouter({ signingKey: deps.signingKey }),
    clients: createClientsRouter({ config }),
    cases: casesRouter,
    timeline: timelineRouter,
    users: mergeRouters(
      usersRouter,
      createUserSessionsRouter({ sessionSecret: config.sessionSecret, now }),
      createInvitationsRouter({ siteUrl: config.siteUrl, now }),
    ),
    chat: mergeRouters(
      createChatRouter({ ...send, templatesPath: config.messaging.templatesPath, now }),
      createScheduledSendsRouter({ config, now }),
    ),
    inbox: mergeRouters(
      createInboxRouter({ events: deps.events, provider: deps.provider, providerFor: deps.providerFor, config, logger, now }),
      createOwnershipRouter({ config, now }),
      createLiveRouter({ liveStreams: deps.liveStreams, config }),
    ),
    notifications: notificationsRouter,
    settings: mergeRouters(createSettingsRouter(send), createBusinessHoursRouter({ firmTimeZone: config.firmTimeZone })),
    holds: holdsRouter,
    retention: createRetentionRouter({ retentionYears: config.retentionYears }),
    erasure: erasureRouter,
    wording: wordingRouter,
    numbers: createNumbersRouter({
      signingKeyFile: config.signingKeyFile,
      defaultCountry: config.defaultCountry,
      configuredKey: config.messaging.apiKey,
      onChanged: () => deps.numberRoutes.forget(),
    }),
    imports: createImportsRouter({ store: deps.mediaStore, firmTimeZone: config.firmTimeZone }),
  });
}

export type AppRouter = ReturnType<typeof createAppRouter>;
