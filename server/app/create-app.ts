import { createExpressMiddleware } from '@trpc/server/adapters/express';
import express, { type Request } from 'express';
import { requireSession } from '../auth';
import { serveCertificate } from '../records/certificate-route';
import { createWebhookRouter } from '../webhook/webhook-route';
import { serveMedia } from '../media/media-download-route';
import { receiveUpload } from '../media/media-upload-route';
import { IMPORT_UPLOAD_PATH, receiveChatExport } from '../imports/import-upload-route';
import { serveExport } from '../export/export-route';
import { EXPORT_VERIFY_PATH, serveExportVerify } from '../export/verify-route';
import { SIGNING_KEY_PATH, serveSigningKey } from '../export/signing-key-route';
import { watchIdleUpload } from '../media/uploads/watch-idle-upload';
import { serveLiveStream } from '../live/live-stream-route';
import { RESUMABLE_UPLOADS_PATH, receiveResumableUploads } from '../media/uploads/resumable-upload-route';
import { handleHealth } from '../http/health-route';
import { createOidcRoutes, OIDC_CALLBACK_PATH, OIDC_START_PATH } from '../auth/oidc/oidc-routes';
import { HTTP_TIMEOUTS, type THttpTimeouts } from '../http/http-timeouts';
import { enforceRequestDeadline } from '../http/request-deadline';
import { logRequests } from '../http/request-logger';
import { answerNotFound, handleHttpErrors } from '../http/http-errors';
import { requireSameOriginJson, requireSameSite } from '../http/same-origin';
import { framedBySelfOnly, securityHeaders } from '../http/security-headers';
import { guardTrpcRequests, refuseUnknownMethods, TRPC_MAX_BATCH, TRPC_MAX_BODY_BYTES } from '../http/trpc-guards';
import { serveSpa } from '../http/spa-route';
import type { TAppDeps } from './app-deps';
import type { AppRouter } from './app-router';
import { createContextFactory } from './create-context';

export type TAppOptions = {
  deps: TAppDeps;
  /** The procedures served at /trpc (createAppRouter of the same deps). */
  router: AppRouter;
  spaDir?: string;
  /** Woken when the webhook records files to download. */
  mediaQueue?: { wake(): void };
  /** How long a request may take to arrive (uploads: how long they may sit idle). */
  timeouts?: THttpTimeouts;
};

/** Uploads have no total time limit, only an idle one (see the upload routes); a copy sent to be verified is one too. */
function isUpload(req: Request): boolean {
  // As Express routes: case-insensitive, a trailing slash allowed.
  const path = req.path.toLowerCase().replace(/\/+$/, '');
  return (
    (req.method === 'POST' && (path === '/api/media' || path === EXPORT_VERIFY_PATH || path === IMPORT_UPLOAD_PATH)) ||
    path === RESUMABLE_UPLOADS_PATH ||
    path.startsWith(`${RESUMABLE_UPLOADS_PATH}/`)
  );
}

// No global body parser: the webhook route reads its own raw body, and tRPC parses its own.
export function createApp({ deps, router, spaDir, mediaQueue, timeouts = HTTP_TIMEOUTS }: TAppOptions) {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false); // API answers are never conditional; hashing every body costs CPU
  // X-Forwarded-For is believed only from these peers (TRUST_PROXY): it decides whose sign-in
  // attempts are counted together, so a client that reaches the server directly cannot choose it.
  app.set('trust proxy', deps.config.trustProxy);
  app.use(logRequests(deps.logger));
  app.use(enforceRequestDeadline(timeouts.requestMs, isUpload));
  const media = { store: deps.mediaStore, logger: deps.logger, siteUrl: deps.config.siteUrl, now: deps.now };
  // Every plain HTTP route a browser uses is behind this one session check (401 in the one error shape).
  const signedIn = requireSession({ sessionSecret: deps.config.sessionSecret, now: deps.now });
  const sameSiteUploads = requireSameSite(deps.config.siteUrl, 'Cross-site uploads are not allowed.');
  // Before the method filter: tus needs PATCH, DELETE and OPTIONS.
  app.use(
    RESUMABLE_UPLOADS_PATH,
    securityHeaders(deps.config),
    sameSiteUploads,
    signedIn,
    receiveResumableUploads({ ...media, idleMs: timeouts.uploadIdleMs }),
  );
  app.use(refuseUnknownMethods);

  // The provider's route first: the busiest path walks the fewest layers.
  app.use(
    '/api/webhooks/chat',
    createWebhookRouter({
      logger: deps.logger,
      auth: { secret: deps.config.messaging.webhookSecret, allowUnauthenticated: deps.config.messaging.allowUnauthenticatedWebhooks },
      numberRoutes: (fresh) => (fresh ? deps.numberRoutes.fresh() : deps.numberRoutes.get()),
      verifyToken: deps.config.messaging.verifyToken,
      onFilesPending: () => mediaQueue?.wake(),
      canDownloadFiles: deps.provider !== null,
      deadlineMs: timeouts.deliveryMs,
    }),
  );
  // Everything a browser loads gets helmet's headers and the CSP (the provider's route needs none).
  app.use(securityHeaders(deps.config));
  app.get('/api/health', handleHealth(deps.config.mode, deps.config.oidc !== null));
  if (deps.config.oidc) {
    // Single sign-on (server/auth/README.md "Single sign-on"); unset, both paths answer 404 as any unknown /api path.
    const oidc = createOidcRoutes({
      config: deps.config.oidc,
      signInLimiter: deps.signInLimiter,
      sessionSecret: deps.config.sessionSecret,
      secureCookies: deps.config.secureCookies,
      logger: deps.logger,
      now: deps.now,
    });
    app.get(OIDC_START_PATH, oidc.start);
    app.get(OIDC_CALLBACK_PATH, oidc.callback);
  }
  app.get(SIGNING_KEY_PATH, serveSigningKey(deps.signingKey)); // public: it is the firm's public key
  app.get('/api/media/:attachmentId', signedIn, serveMedia(media));
  app.post('/api/media', sameSiteUploads, signedIn, receiveUpload({ ...media, idleMs: timeouts.uploadIdleMs }));
  app.post(
    IMPORT_UPLOAD_PATH,
    sameSiteUploads,
    signedIn,
    receiveChatExport({
      store: deps.mediaStore,
      logger: deps.logger,
      firmTimeZone: deps.config.firmTimeZone,
      now: deps.now,
      idleMs: timeouts.uploadIdleMs,
      watchIdle: watchIdleUpload,
    }),
  );
  app.post(
    EXPORT_VERIFY_PATH,
    requireSameSite(deps.config.siteUrl, 'Copies are verified from Firm Chat itself.'),
    signedIn,
    serveExportVerify({ logger: deps.logger, idleMs: timeouts.uploadIdleMs, watchIdle: watchIdleUpload, signingKey: deps.signingKey }),
  );
  app.get(
    '/api/export/:scope/:file',
    framedBySelfOnly,
    signedIn,
    serveExport({ ...media, firmName: deps.config.firmName, firmTimeZone: deps.config.firmTimeZone, signingKey: deps.signingKey }),
  );
  app.get(
    '/api/retention/:file',
    signedIn,
    serveCertificate({ firmName: deps.config.firmName, firmTimeZone: deps.config.firmTimeZone, logger: deps.logger }),
  );

  app.use(
    '/trpc',
    guardTrpcRequests(),
    requireSameOriginJson(deps.config.siteUrl),
    serveLiveStream(deps.liveStreams, deps.config.sessionSecret, deps.now),
    createExpressMiddleware({
      router,
      maxBodySize: TRPC_MAX_BODY_BYTES,
      maxBatchSize: TRPC_MAX_BATCH,
      createContext: createContextFactory({
        sessionSecret: deps.config.sessionSecret,
        secureCookies: deps.config.secureCookies,
        now: deps.now,
      }),
      onError: ({ error, path }) => {
        if (error.code === 'INTERNAL_SERVER_ERROR') {
          // Name and driver code only: driver messages can quote SQL parameters (bodies, phones).
          const cause = error.cause as { name?: string; parent?: { code?: string } } | undefined;
          deps.logger.error({ path, error: cause?.name ?? error.name, sqlState: cause?.parent?.code }, 'procedure failed');
        }
      },
    }),
  );
  app.use('/api', answerNotFound);
  app.use(serveSpa(spaDir));
  // What nothing above answered (a POST to a page, say): JSON, never Express's HTML page.
  app.use(answerNotFound);
  app.use(handleHttpErrors(deps.logger));
  return app;
}
