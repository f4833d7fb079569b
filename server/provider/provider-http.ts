import { extractProviderCode, extractProviderDetail, kindForStatus, ProviderError } from './provider-errors';

// How the client reads the provider's HTTP: what a failure means, where a link may point, when a
// silent answer is given up on.

// Errors that happen before a connection exists: the request cannot have reached the provider.
const NEVER_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

export function neverConnected(error: unknown): boolean {
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause;
  return typeof cause?.code === 'string' && NEVER_CONNECTED.has(cause.code);
}

export function isRedirect(status: number): boolean {
  return status >= 300 && status < 400;
}

/** A redirect is a failure with its reason: where it pointed (host only, never a query that may carry a token). */
export function redirectError(res: Response): ProviderError {
  const location = res.headers.get('location');
  const where = location && URL.canParse(location, res.url) ? new URL(location, res.url).host : null;
  return new ProviderError('redirect', res.status, where);
}

/**
 * `url`'s path and query on the provider's own scheme, host and port: the key goes to the provider
 * only. Built as a URL, not by joining strings (a `x:.evil.example/p` "path" would otherwise become
 * part of the host); anything but http(s) is refused.
 */
export function onProviderHost(baseUrl: string, url: string): string {
  const given = URL.canParse(url) ? new URL(url) : null;
  if (!given || (given.protocol !== 'https:' && given.protocol !== 'http:'))
    throw new ProviderError('unexpected', 200, 'the provider gave a link that is not http(s)');
  const target = new URL(baseUrl);
  // A request path starting "//" is, to a proxy that resolves it as a reference, "//host/x": another
  // host. The path is already normalised (no dot segments), so one leading slash stays one.
  target.pathname = given.pathname.replace(/^\/+/, '/');
  target.search = given.search;
  target.hash = '';
  return target.toString();
}

/** The provider's JSON answer (null when not JSON); a non-2xx status is a ProviderError with its detail and code. */
export function parseAnswer(status: number, text: string): unknown {
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (status < 200 || status >= 300)
    throw new ProviderError(kindForStatus(status), status, extractProviderDetail(json), extractProviderCode(json));
  return json;
}

/** Aborts when the first answer takes longer than `firstMs`, or later when nothing moved for `idleMs`. */
export class IdleAbort {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout;
  fired = false;
  readonly signal: AbortSignal = this.controller.signal;

  constructor(
    firstMs: number,
    private readonly idleMs: number,
  ) {
    this.timer = this.arm(firstMs);
  }

  private arm(ms: number): NodeJS.Timeout {
    return setTimeout(() => {
      this.fired = true;
      this.controller.abort(new DOMException('idle', 'TimeoutError'));
    }, ms);
  }

  touch(): void {
    clearTimeout(this.timer);
    this.timer = this.arm(this.idleMs);
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}
