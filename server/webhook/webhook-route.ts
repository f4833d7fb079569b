import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Response, type Router } from 'express';
import { InboundBatcher, storeInboundMessages } from '../messaging';
import type { TLogger } from '../core/logger';
import { drainBeforeClosing } from '../http/drain-unread-body';
import { isDatabaseUnavailable } from '../core/db/database-errors';
import type { TNumberRoute } from '../numbers';
import { DeliveryLog } from './delivery-log';
import { ingestDelivery } from './ingest-delivery';
import { countPayloadItems, MAX_ITEMS_PER_DELIVERY, parsePayload } from './parse-payload';
import { routeByNumber } from './route-by-number';
import { mayBeAuthentic, provenSecret, safeEqualStrings, type TWebhookAuth } from './verify-signature';

export const WEBHOOK_BODY_LIMIT = '3mb';
/** The same limit in bytes (as express.raw reads '3mb'), for a body that declares its length. */
const WEBHOOK_BODY_LIMIT_BYTES = 3 * 1024 * 1024;
export class DeliveryDeadlineError extends Error {
  override name = 'DeliveryDeadlineError';
}

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new DeliveryDeadlineError(`not stored within ${ms} ms`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

export type TWebhookDeps = {
  logger: TLogger;
  auth: TWebhookAuth;
  /**
   * The firm's numbers and the secret each one's deliveries prove (server/numbers/README.md "Several
   * numbers"): as kept, or `fresh`, read now — before a delivery is refused or an item ignored.
   */
  numberRoutes: (fresh: boolean) => Promise<TNumberRoute[]>;
  verifyToken: string | undefined;
  /** Told when files were recorded `pending`, so the media queue starts on them now rather than at its next poll. */
  onFilesPending?: () => void;
  /** False in demo mode: no provider to download files from. */
  canDownloadFiles: boolean;
  /** A delivery is answered inside this, stored or not (`HTTP_TIMEOUTS.deliveryMs`, server/http/http-timeouts.ts). */
  deadlineMs: number;
};

/** GET: the provider's verification handshake (server/webhook/README.md "The inbound webhook"). Repeated or missing parameters → 403. */
function handleHandshake(verifyToken: string | undefined): RequestHandler {
  return (req, res) => {
    const { 'hub.mode': mode, 'hub.verify_token': token, 'hub.challenge': challenge } = req.query;
    const ok =
      verifyToken !== undefined &&
      mode === 'subscribe' &&
      typeof token === 'string' &&
      typeof challenge === 'string' &&
      safeEqualStrings(token, verifyToken);
    if (!ok) {
      res.status(403).type('text/plain').send('Forbidden');
      return;
    }
    // Echoed input: plain text that no browser may sniff into HTML.
    res.status(200).set('X-Content-Type-Options', 'nosniff').type('text/plain').send(challenge);
  };
}

// The provider's hot path: answer with plain Node calls rather than res.json's extra work.
function sendJson(res: Response, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** The firm's numbers could not be read: nothing is decided, and the provider retries a 503, losing nothing. */
function answerUnrouted(deps: TWebhookDeps, res: Response, error: unknown): void {
  deps.logger.error({ error: (error as Error).name }, 'webhook delivery not routed: the firm numbers could not be read');
  sendJson(res, 503, { ok: false, error: 'unavailable' });
}

function rawBodyOf(req: Request): Buffer {
  return Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
}

/** POST: verify (raw bytes) → parse (zod, both shapes) → ingest (idempotent SQL, which also notifies). */
function handleDelivery(deps: TWebhookDeps, batcher: InboundBatcher): RequestHandler {
  return async (req, res) => {
    const raw = rawBodyOf(req);
    if (deps.auth.allowUnauthenticated) {
      deps.logger.warn('webhook POST accepted WITHOUT authentication (ALLOW_UNAUTHENTICATED_WEBHOOKS=true)');
    }
    let routes = (res.locals.routes ?? []) as TNumberRoute[];
    let fresh = res.locals.freshRoutes === true;
    /** The numbers read now, once per delivery; false when they cannot be (answered 503: the provider retries). */
    const readAfresh = async (): Promise<boolean> => {
      try {
        routes = await deps.numberRoutes(true);
        fresh = true;
        return true;
      } catch (error) {
        answerUnrouted(deps, res, error);
        return false;
      }
    };
    const prove = () => (deps.auth.allowUnauthenticated ? null : provenSecret(req.headers, raw, authWith(deps.auth, routes)));
    let secret = prove();
    if (!deps.auth.allowUnauthenticated && secret === null && !fresh) {
      if (!(await readAfresh())) return;
      secret = prove();
    }
    if (!deps.auth.allowUnauthenticated && secret === null) {
      sendJson(res, 401, { ok: false, error: 'unauthorized' });
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(raw.toString('utf8'));
    } catch {
      sendJson(res, 400, { ok: false, error: 'invalid_json' });
      return;
    }
    // Counted before any item is parsed: a flood of tiny items would otherwise hold the event loop.
    if (countPayloadItems(json) > MAX_ITEMS_PER_DELIVERY) {
      sendJson(res, 413, { ok: false, error: 'too_many_items', max: MAX_ITEMS_PER_DELIVERY });
      return;
    }
    // An item counts as a number's only when this delivery proved that number's secret.
    const parsed = parsePayload(json);
    const route = () =>
      routeByNumber(parsed, routes, secret === null ? 'all' : new Set(routes.filter((r) => r.secret === secret).map((r) => r.id)));
    let routed = route();
    // Nothing is ignored on the kept numbers alone: one added a moment ago, on any instance, is read now.
    if (routed.ignored && !fresh) {
      if (!(await readAfresh())) return;
      routed = route();
    }
    const { payload, ignored, foreign } = routed;
    if (ignored)
      deps.logger.warn(
        { ignored, numbers: foreign.slice(0, 10) },
        'webhook items were ignored: for a number the firm does not have (or has deactivated), or without that number’s secret',
      );
    try {
      // A late commit after the deadline is harmless: the provider's retry finds the ids stored
      // (unique index) and stores nothing twice.
      const { stored, changed } = await withDeadline(ingestDelivery(payload, batcher, deps.onFilesPending), deps.deadlineMs);
      const body: Record<string, unknown> = { ok: true };
      if (ignored) body.ignored = ignored;
      if (payload.hasMessages || !payload.hasStatuses) Object.assign(body, { received: payload.received, stored: stored.length });
      if (payload.hasStatuses) Object.assign(body, { statuses: payload.statusCount, updated: changed });
      sendJson(res, 200, body);
    } catch (error) {
      // The provider retries non-2xx deliveries: answering 503 loses nothing.
      const unavailable = error instanceof DeliveryDeadlineError || isDatabaseUnavailable(error);
      deps.logger.error({ error: (error as Error).name, unavailable }, 'webhook delivery not stored');
      sendJson(res, unavailable ? 503 : 500, { ok: false, error: unavailable ? 'unavailable' : 'internal_error' });
    }
  };
}

const handleBodyErrors: ErrorRequestHandler = (err: { status?: number; type?: string }, _req, res, next) => {
  if (err.status === 413) return void sendJson(res, 413, { ok: false, error: 'payload_too_large' });
  if (err.status === 415) return void sendJson(res, 415, { ok: false, error: 'unsupported_encoding' });
  if (err.status === 400) return void sendJson(res, 400, { ok: false, error: 'bad_request' });
  next(err);
};

/** The firm's secret and every active number's own. */
function authWith(auth: TWebhookAuth, routes: TNumberRoute[]): TWebhookAuth {
  return { ...auth, numberSecrets: routes.map((r) => r.secret).filter((secret): secret is string => !!secret) };
}

export function createWebhookRouter(deps: TWebhookDeps): Router {
  const router = express.Router();
  const batcher = new InboundBatcher((messages) => storeInboundMessages(messages, deps.canDownloadFiles));
  const deliveryLog = new DeliveryLog(deps.logger);
  router.get('/', handleHandshake(deps.verifyToken));
  // Settings shows a director when a POST last arrived and how it was answered: every answer,
  // including refusals before the body is read (too large, unknown encoding).
  router.post('/', (_req, res, next) => {
    res.once('finish', () => deliveryLog.note(res.statusCode));
    next();
  });
  // Neither the secret nor a well-formed signature: refused before the body is read (Node discards it).
  router.post('/', (req, res, next) => {
    // The kept numbers, and a fresh read before refusing: a number's secret set a moment ago on another instance.
    const routed = async (fresh: boolean): Promise<boolean> => {
      const routes = await deps.numberRoutes(fresh);
      res.locals.routes = routes;
      res.locals.freshRoutes = fresh;
      return mayBeAuthentic(req.headers, authWith(deps.auth, routes));
    };
    routed(false)
      .then((authentic) => authentic || routed(true))
      .then(
        (authentic) => {
          if (authentic) return next();
          res.setHeader('connection', 'close');
          sendJson(res, 401, { ok: false, error: 'unauthorized' });
        },
        (error: unknown) => {
          // Nothing read yet: the body is left unread, so the connection goes with the answer.
          res.setHeader('connection', 'close');
          answerUnrouted(deps, res, error);
        },
      );
  });
  // A body that says it is over the limit is answered at once, and the rest read and dropped up to a
  // bound before the connection closes (express.raw would read all of it, however long, to answer).
  router.post('/', (req, res, next) => {
    const declared = Number(req.headers['content-length']);
    const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
    if (encoding !== 'identity' || !(declared > WEBHOOK_BODY_LIMIT_BYTES)) return next();
    res.setHeader('connection', 'close');
    drainBeforeClosing(req, res);
    sendJson(res, 413, { ok: false, error: 'payload_too_large' });
  });
  // Raw bytes on this route only: the signature covers the exact body, so nothing may parse it first.
  router.post('/', express.raw({ type: () => true, limit: WEBHOOK_BODY_LIMIT }), handleDelivery(deps, batcher));
  router.use(handleBodyErrors);
  return router;
}
