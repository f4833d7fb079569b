import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { handleControl } from './control-api';
import { numberForKey } from './firm-numbers';
import { answerMediaLookup, DOWNLOAD_PATH, receiveUpload, streamMedia } from './media-endpoints';
import { ERROR_TITLES, errorBody } from './provider-errors';
import { answerSend } from './send-rules';
import { recordRequest, type TRecordedRequest, type TSendJson, type TSimState } from './sim-state';
import { listTemplatePage } from './templates';

// The simulator's HTTP front: the server itself, and the routing of each request: the control API
// first, then (recorded) a scripted answer if one is queued, the API key (which of the firm's
// numbers the request is about), and the provider's paths.

/** Starts listening on the configured port and host; resolves with the server and its base url. */
export async function startHttpServer(state: TSimState): Promise<{ server: http.Server; url: string }> {
  // An error in one request fails that request (500), never the process running the simulator.
  const server = http.createServer(
    (req, res) =>
      void routeRequest(state, req, res).catch(() => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'simulator error', code: 500 } }));
      }),
  );
  // An idle connection is kept a minute, not Node's 5 s: a test process that both runs the simulator and
  // calls it can stall past 5 s on a loaded machine, and its next request then met a connection the
  // server had just closed (ECONNRESET).
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(state.options.port ?? 0, state.options.host ?? '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** Ends held (`hang`) requests and every connection, then closes the server. */
export async function closeHttpServer(state: TSimState, server: http.Server | undefined): Promise<void> {
  for (const res of state.hanging) res.destroy();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
}

async function routeRequest(state: TSimState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { options } = state;
  const path = (req.url ?? '/').split('?')[0]!;
  // An upload is parsed as it streams; everything else is small JSON, read whole.
  const isUpload = req.method === 'POST' && path === '/media';
  const chunks: Buffer[] = [];
  if (!isUpload) for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  const query = new URLSearchParams((req.url ?? '').split('?')[1] ?? '');
  const send: TSendJson = (status, json, headers = {}) => {
    // The app may have given up waiting (its timeout): nothing to answer.
    if (res.destroyed || res.headersSent) return;
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(json));
  };

  if (path.startsWith('/__sim/')) return handleControl(state, req.method ?? 'GET', path, body, send);

  const apiKey = typeof req.headers['provider-api-key'] === 'string' ? req.headers['provider-api-key'] : undefined;
  const number = numberForKey(options, apiKey);
  const recorded: TRecordedRequest = {
    method: req.method ?? 'GET',
    path,
    query: query.toString(),
    apiKey,
    ...(number ? { firm: number.digits } : {}),
    contentType: req.headers['content-type'],
    body,
  };
  recordRequest(state, recorded);

  const isSend = typeof body === 'object' && body !== null && 'to' in body;
  const at = state.queue.findIndex((answer) => !answer.onlySends || isSend);
  const scripted = at < 0 ? undefined : state.queue.splice(at, 1)[0];
  if (scripted) {
    if ('hang' in scripted) {
      state.hanging.add(res);
      res.on('close', () => state.hanging.delete(res));
      return;
    }
    const title = scripted.title ?? ERROR_TITLES[scripted.status] ?? 'Error';
    if (isUpload) req.resume();
    return send(
      scripted.status,
      scripted.body ?? errorBody(scripted.status, scripted.shape ?? 'cloud', scripted.details, title),
      scripted.headers,
    );
  }
  if (!number) {
    if (isUpload) req.resume();
    return send(401, errorBody(401, 'cloud', 'The API key is missing or invalid.', ERROR_TITLES[401]!));
  }
  if (isUpload) return receiveUpload(state, req, recorded, send);
  if (req.method === 'GET' && path === DOWNLOAD_PATH) {
    const media = state.media.get(query.get('mid') ?? '');
    if (!media) return send(404, errorBody(404, 'cloud', 'Media not found', 'Unknown media'));
    return streamMedia(state, res, media);
  }
  const mediaId = /^\/([A-Za-z0-9._-]+)$/.exec(path)?.[1];
  const media = req.method === 'GET' && mediaId ? state.media.get(mediaId) : undefined;
  if (media) return answerMediaLookup(media, send);

  const profilePath = options.profilePath ?? '/whatsapp_business_profile';
  if (req.method === 'GET' && path === profilePath) {
    return send(200, {
      verified_name: options.verifiedName ?? 'Ashdown & Vale Solicitors',
      quality_rating: options.qualityRating ?? 'GREEN',
      display_phone_number: number.apiKey === options.apiKey ? '+44 20 7946 0000' : `+${number.digits}`,
      about: 'Solicitors. Messages are answered in office hours.',
    });
  }
  if (req.method === 'GET' && path === (options.templatesPath ?? '/v1/configs/templates'))
    return send(200, listTemplatePage(options, query, number.templates));
  if (req.method === 'POST' && path === '/messages') return answerSend(state, body, send, number);
  if (req.method === 'GET' && mediaId)
    return send(404, errorBody(404, 'cloud', `Unsupported get request. Object with ID '${mediaId}' does not exist`, 'Unknown media', 100));
  return send(404, errorBody(404, 'cloud', `No route ${req.method} ${path}`, 'Unknown path'));
}
