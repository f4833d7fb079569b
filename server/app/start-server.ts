import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignInLimiter, type TSignInLimits } from '../auth/sign-in-limiter';
import { checkWatchedSessions } from '../auth';
import type { TConfig } from '../core/config';
import { openDatabase, type TDatabase } from '../core/db/open-database';
import { ChatEvents } from '../events/chat-events';
import { LiveStreams, type TLiveStreamOptions } from '../live/live-streams';
import { applyHttpTimeouts, HTTP_TIMEOUTS, type THttpTimeouts } from '../http/http-timeouts';
import type { TLogger } from '../core/logger';
import { schedulePruning } from '../maintenance/prune-expired';
import { scheduleSendSweeps, sweepAbandonedSends } from '../maintenance/sweep-abandoned-sends';
import { scheduleTempFileSweeps } from '../maintenance/schedule-temp-file-sweeps';
import { scheduleConversationTimers } from '../ownership';
import { denialsSettled } from '../access';
import { scheduleAuditCheckpoints, type TCheckpointScheduleOptions } from '../audit';
import { scheduleRetentionWork } from '../records';
import { startScheduledSendWorker, type TScheduledSendWorkerOptions } from '../scheduling';
import { syncTemplates } from '../templates/template-catalogue';
import { loadSigningKey, SigningKeyError, type TSigningKey } from '../signing';
import { ProviderClient } from '../provider/provider-client';
import { MediaDownloadQueue, type TMediaQueueOptions } from '../media/media-download-queue';
import { PostgresMediaStore } from '../media/media-store';
import { loadThreadItems, type TThreadItem } from '../inbox/thread-items';
import { scheduleUnreadFolding } from '../inbox';
import {
  findUnreadableNumbers,
  listFirmNumbers,
  numberKeysFrom,
  NumberRouteCache,
  providersByNumber,
  readNumberRoutes,
  syncConfiguredNumber,
  unreadableKey,
  type TProviderFor,
} from '../numbers';
import { isDatabaseEmpty, seedDemoData } from '../seed/seed-demo';
import type { TAppDeps } from './app-deps';
import { createAppRouter, type AppRouter } from './app-router';
import { createApp } from './create-app';

export type TRunningServer = {
  url: string;
  events: ChatEvents<TThreadItem>;
  liveStreams: LiveStreams;
  /** The procedures this server serves at /trpc. */
  router: AppRouter;
  port: number;
  database: TDatabase;
  /** Settles when the start-up read of the template catalogue has ended (stored, or given up and logged). */
  templatesSynced: Promise<void>;
  close: () => Promise<void>;
};

const SHUTDOWN_GRACE_MS = 10_000;

/** What the log says at start about settings a person should know are in force. */
function warnAboutConfig(config: TConfig, logger: TLogger): void {
  if (config.mode === 'demo') logger.info('demo mode: MESSAGING_API_KEY is not set, sends are recorded locally only');
  if (config.defaultCountryFrom === 'calling code')
    logger.warn(
      { defaultCountry: config.defaultCountry },
      `FIRM_PHONE is in a range the phone library does not place: national numbers are read in ${config.defaultCountry}, its calling code's main country (set DEFAULT_COUNTRY to choose)`,
    );
  if (config.messaging.allowUnauthenticatedWebhooks) {
    logger.warn('ALLOW_UNAUTHENTICATED_WEBHOOKS=true: webhook POSTs are accepted WITHOUT authentication. Local development only.');
  } else if (!config.messaging.webhookSecret) {
    logger.warn('MESSAGING_WEBHOOK_SECRET is not set: every webhook POST will be refused (401).');
  }
}

/** The key file named in the config; a reason it cannot be used stops the start (the database is closed again). */
function readSigningKey(config: TConfig): TSigningKey {
  try {
    return loadSigningKey(config.signingKeyFile, { create: config.signingKeyCreate });
  } catch (error) {
    if (error instanceof SigningKeyError) throw new Error(`SIGNING_KEY_FILE: ${error.message}`);
    throw error;
  }
}

/** The live feed of changes; a session ended on any instance ends its open live streams here at once (server/auth/session-watch.ts). */
function openChatEvents(database: TDatabase, logger: TLogger): ChatEvents<TThreadItem> {
  const events = new ChatEvents<TThreadItem>({ databaseUrl: database.url, logger, loadItems: loadThreadItems });
  events.onSessionsChanged(() => void checkWatchedSessions());
  return events;
}
/** Opens the database (embedded or DATABASE_URL), migrates, seeds a fresh demo database, and listens. */
export async function startServer(
  config: TConfig,
  logger: TLogger,
  options: {
    spaDir?: string;
    signInLimits?: TSignInLimits;
    mediaQueue?: TMediaQueueOptions;
    liveStreams?: TLiveStreamOptions;
    /** How long a provider call may take (MESSAGING_TIMEOUT_SECONDS, 10 s); tests of a slow provider shorten it. */
    providerTimeoutMs?: number;
    /** How long a request may take to arrive, and an upload sit idle; tests shorten them. */
    timeouts?: Partial<THttpTimeouts>;
    /** The scheduled sends' worker; `false`: this instance sends none (a test's other instance does). */
    scheduledSends?: TScheduledSendWorkerOptions | false;
    /** The trail's signed checkpoints: how often the head is looked at, their clock; tests shorten and hear it. */
    auditCheckpoints?: TCheckpointScheduleOptions;
  } = {},
): Promise<TRunningServer> {
  const database = await openDatabase(config, logger);
  const events = openChatEvents(database, logger);
  const liveStreams = new LiveStreams(events, logger, options.liveStreams);
  let server: Server;
  let mediaQueue: MediaDownloadQueue | undefined;
  let deps: TAppDeps;
  let signingKey: TSigningKey;
  let router: AppRouter;
  let templateSync: Promise<void>;
  try {
    signingKey = readSigningKey(config);
    await sweepAbandonedSends(logger);
    await prepareNumbers(config, logger);
    // Demo data only where nobody can mistake it for real data: embedded, demo mode, empty.
    if (database.embedded && config.mode === 'demo' && (await isDatabaseEmpty())) {
      await seedDemoData({ defaultCountry: config.defaultCountry });
      logger.info('seeded demo data');
    }
    warnAboutConfig(config, logger);

    await events.start();
    liveStreams.start();
    const { provider, providerFor } = makeProviders(config, options.providerTimeoutMs);
    // The template catalogue: read from the provider at start-up in live mode (in the background:
    // an unreachable provider must not hold the server; the last stored catalogue is offered), the
    // built-in approved set in demo mode.
    templateSync = syncTemplates({ provider, templatesPath: config.messaging.templatesPath }).then(
      (catalogue) => logger.info({ templates: catalogue.templates.length }, 'template catalogue synced'),
      (error: unknown) => logger.warn({ error: (error as Error).message }, 'template catalogue not synced; the last stored one is offered'),
    );
    // Each other number's catalogue, with its own key, after number 1's (server/numbers/README.md "Several numbers").
    templateSync = templateSync.then(() => syncOtherNumbersTemplates(providerFor, config.messaging.templatesPath, logger));
    if (!provider) await templateSync;
    const signInLimiter = new SignInLimiter(options.signInLimits);
    const mediaStore = new PostgresMediaStore();
    deps = {
      config,
      logger,
      events,
      liveStreams,
      provider,
      providerFor,
      numberRoutes: keepNumberRoutes(config, logger, events),
      signInLimiter,
      mediaStore,
      signingKey,
      now: () => new Date(),
    };
    mediaQueue = new MediaDownloadQueue(
      { provider, providerFor, store: mediaStore, logger, announce: (ids) => events.publishQuietly(ids) },
      options.mediaQueue,
    );
    const timeouts = { ...HTTP_TIMEOUTS, ...options.timeouts };
    router = createAppRouter(deps);
    const app = createApp({ deps, router, spaDir: options.spaDir, mediaQueue, timeouts });
    server = await new Promise((resolve, reject) => {
      const s = http.createServer(app);
      applyHttpTimeouts(s, timeouts);
      s.once('error', reject);
      s.listen(config.port, () => resolve(s));
    });
  } catch (error) {
    // One way out of a failed start: nothing left running, the embedded database stopped.
    liveStreams.close();
    await events.close();
    await database.close();
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new Error(`Port ${config.port} is already in use: stop the other server or set PORT to a free port.`);
    }
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  logger.info({ port }, `listening on http://localhost:${port}`);
  const stopPruning = schedulePruning(logger);
  const stopSendSweeps = scheduleSendSweeps(logger, (ids) => events.publishQuietly(ids));
  // What a killed server left in the temporary directory (server/media/README.md "Files").
  const stopTempFileSweeps = scheduleTempFileSweeps(logger);
  const stopConversationTimers = scheduleConversationTimers(logger, config.replyTargetMinutes);
  // Each reader's unread kept near the present, so the badge reads what changed, not the firm (server/inbox/README.md "The badge, kept").
  const stopUnreadFolding = scheduleUnreadFolding(logger);
  // Approved retention and erasure batches, carried on where a stop left them (server/records/README.md "Records").
  const stopRetentionWork = scheduleRetentionWork(logger);
  // The trail's head signed each minute it moved and at every export (server/audit/audit-checkpoints.ts).
  const stopAuditCheckpoints = scheduleAuditCheckpoints({ logger, signingKey }, { now: deps.now, ...options.auditCheckpoints });
  // Files left pending by a stop (or a crash) are taken up again as their leases run out.
  mediaQueue.start();
  // Scheduled sends and out-of-hours replies, due now or left leased by a stop (server/messaging/README.md "Scheduled sends").
  const scheduledSends =
    options.scheduledSends === false
      ? null
      : startScheduledSendWorker(
          { events, provider: deps.provider, providerFor: deps.providerFor, config, mediaStore: deps.mediaStore, logger },
          options.scheduledSends,
        );

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      // End live streams, stop accepting, let in-flight requests finish (bounded), then release the database.
      // Scheduled sends first: a send in flight finishes (its record and the end of its wait commit together).
      await scheduledSends?.stop();
      stopPruning();
      stopConversationTimers();
      await stopUnreadFolding();
      stopSendSweeps();
      stopTempFileSweeps();
      await stopRetentionWork();
      await stopAuditCheckpoints();
      await mediaQueue.stop();
      liveStreams.close();
      await events.close();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.closeAllConnections();
          resolve();
        }, SHUTDOWN_GRACE_MS);
        timer.unref();
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      });
      // Refusals recorded off the request's path finish writing before the database goes.
      await denialsSettled();
      await database.close();
    })();
    return closing;
  };
  return { url: `http://127.0.0.1:${port}`, port, database, events, liveStreams, router, templatesSynced: templateSync, close };
}

/** The provider client of number 1 (null in demo mode) and the one each other firm number sends with, its own key (server/numbers/README.md "Several numbers"). */
function makeProviders(config: TConfig, timeoutMs: number | undefined): { provider: ProviderClient | null; providerFor: TProviderFor } {
  const clientWithKey = (apiKey: string) =>
    new ProviderClient({
      baseUrl: config.messaging.providerUrl,
      apiKey,
      profilePath: config.messaging.profilePath,
      timeoutMs: timeoutMs ?? config.messaging.timeoutMs,
    });
  const provider = config.messaging.apiKey ? clientWithKey(config.messaging.apiKey) : null;
  return { provider, providerFor: providersByNumber(provider, numberKeysFrom(config.signingKeyFile), clientWithKey) };
}

/** Every active number but the configured one: its catalogue read with its key; one that fails keeps its last stored catalogue. */
async function syncOtherNumbersTemplates(providerFor: TProviderFor, templatesPath: string, logger: TLogger): Promise<void> {
  const others = (await listFirmNumbers().catch(() => [])).filter((n) => n.active && n.id !== 1);
  for (const number of others) {
    await providerFor(number.id)
      .then((provider) => syncTemplates({ provider, templatesPath }, number.id))
      .then(
        (catalogue) => logger.info({ numberId: number.id, templates: catalogue.templates.length }, 'template catalogue synced'),
        (error: unknown) =>
          logger.warn(
            { numberId: number.id, error: (error as Error).message },
            'template catalogue not synced; the last stored one is offered',
          ),
      );
  }
}

/**
 * The numbers the webhook routes by, kept until they change (server/numbers/README.md "Several
 * numbers"): every change announced on the feed, by this instance or any other, forgets them.
 */
function keepNumberRoutes(config: TConfig, logger: TLogger, events: ChatEvents<TThreadItem>): NumberRouteCache {
  const keys = numberKeysFrom(config.signingKeyFile);
  // Said once per number: its deliveries are refused until a director enters its secret again.
  const saidUnreadable = new Set<number>();
  const warnUnreadable = (number: { id: number; label: string }) => {
    if (saidUnreadable.has(number.id)) return;
    saidUnreadable.add(number.id);
    logger.error({ numberId: number.id }, `${unreadableKey(number.label)} Until then its deliveries are refused.`);
  };
  const routes = new NumberRouteCache(() => readNumberRoutes(keys, config.messaging.webhookSecret, warnUnreadable));
  events.onNumbersChanged(() => routes.forget());
  return routes;
}

/**
 * Number 1 is the configuration's (server/numbers/README.md "Several numbers"); numbers whose sealed key
 * or secret this signing key file cannot open (it was replaced) are said at start, by name.
 */
async function prepareNumbers(config: TConfig, logger: TLogger): Promise<void> {
  await syncConfiguredNumber(config.firmPhone);
  for (const number of await findUnreadableNumbers(numberKeysFrom(config.signingKeyFile)))
    logger.error({ numberId: number.id }, unreadableKey(number.label));
}
