import { messageForProviderCode } from './provider-error-codes';

// The actionable messages (server/messaging/README.md "Sending messages", the table of provider answers), one per way a
// provider call can fail.

export type TProviderErrorKind =
  | 'not_configured'
  | 'unauthorized'
  | 'not_found'
  | 'rate_limited'
  | 'bad_request'
  | 'server_error'
  | 'network'
  | 'timeout'
  | 'redirect'
  | 'unexpected';

const BAD_REQUEST_NOTE =
  'The provider refused the message. The number may be unverified, or the recipient is outside the 24-hour window and a template is required.';

function actionableMessage(
  kind: TProviderErrorKind,
  status: number | null,
  detail: string | null,
  code: number | null,
  who: string,
): string {
  const forCode = messageForProviderCode(code, who);
  if (forCode && (kind === 'bad_request' || kind === 'rate_limited' || kind === 'unexpected')) return forCode;
  switch (kind) {
    case 'not_configured':
      return 'Chat messaging is not configured (missing API key).';
    case 'unauthorized':
      return 'The provider rejected the API key; check MESSAGING_API_KEY (another business number’s key: Settings › Business numbers).';
    case 'not_found':
      return 'The number is not found at the provider.';
    case 'rate_limited':
      return 'The provider is rate-limiting messages at present; try again in a few minutes.';
    case 'bad_request':
      return detail ?? BAD_REQUEST_NOTE;
    case 'server_error':
      return 'The messaging service is temporarily unavailable; try again shortly.';
    case 'network':
      return 'The messaging service could not be reached.';
    case 'timeout':
      return 'The messaging service timed out; try again.';
    case 'redirect':
      // The key header would go wherever a redirect points: never followed (server/README.md "Security and reliability").
      return `The messaging service answered with a redirect${status !== null ? ` (HTTP ${status})` : ''}${detail ? ` to ${detail}` : ''}, which is not followed: check MESSAGING_PROVIDER_URL.`;
    case 'unexpected':
      return status !== null
        ? `The messaging service answered with an unexpected response (HTTP ${status}).`
        : 'The messaging service answered with an unexpected response.';
  }
}

/** A failed provider call: the HTTP status (if any), the provider's own detail, and what to do. */
export class ProviderError extends Error {
  override name = 'ProviderError';
  constructor(
    readonly kind: TProviderErrorKind,
    readonly status: number | null = null,
    readonly detail: string | null = null,
    /** The provider's error code (cloud `error.code`, on-premise `errors[].code`). */
    readonly code: number | null = null,
    /**
     * The request may have reached the provider and been acted on (its answer was lost: a timeout
     * after the request was written, a reset connection, any 5xx, an accepted send without its id).
     * A send that fails so is not "failed": it may have gone (server/messaging/README.md "Sending messages", Unknown outcome).
     */
    readonly outcomeUnknown = false,
  ) {
    super(actionableMessage(kind, status, detail, code, 'this contact'));
  }

  /** The message naming whom it is about ("since Amelia Hart last wrote"). */
  messageFor(who: string): string {
    return actionableMessage(this.kind, this.status, this.detail, this.code, who);
  }
}

/** The provider's error code from an error body, if it gives one. */
export function extractProviderCode(body: unknown): number | null {
  if (typeof body !== 'object' || body === null) return null;
  const record = body as { error?: { code?: unknown }; errors?: { code?: unknown }[] };
  const codes = [record.error?.code, ...(Array.isArray(record.errors) ? record.errors.map((e) => e?.code) : [])];
  const found = codes.find((c) => typeof c === 'number' && Number.isInteger(c));
  return typeof found === 'number' ? found : null;
}

export function kindForStatus(status: number): TProviderErrorKind {
  if (status >= 300 && status < 400) return 'redirect';
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 404) return 'not_found';
  if (status === 429) return 'rate_limited';
  if (status === 400) return 'bad_request';
  if (status >= 500) return 'server_error';
  return 'unexpected';
}

/**
 * The provider's own words from an error body. Cloud: `error.error_data.details`, else
 * `error.message`. On-premise: `errors[].details`, else `errors[].title`.
 */
export function extractProviderDetail(body: unknown): string | null {
  if (typeof body !== 'object' || body === null) return null;
  const record = body as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : null);
  const cloud = record.error;
  if (typeof cloud === 'object' && cloud !== null) {
    const e = cloud as Record<string, unknown>;
    const data = e.error_data as Record<string, unknown> | undefined;
    const found = text(data?.details) ?? text(e.message);
    if (found) return found;
  }
  if (Array.isArray(record.errors)) {
    for (const item of record.errors as Record<string, unknown>[]) {
      const found = text(item?.details) ?? text(item?.title);
      if (found) return found;
    }
  }
  return null;
}
