import { createHmac } from 'node:crypto';
import { metadataOf, numberOfMessage } from './firm-numbers';
import { trackPending, type TSimState } from './sim-state';
import { retryUntilTaken, wasTaken } from './webhook-retries';

// Delivery to the app's webhook, as the real provider delivers: the cloud envelope, signed with the
// shared secret (X-Service-Signature); a post the app does not take (no answer reads as status 0, or
// any status but 2xx) is tried again later, the same bytes, as webhook-retries.ts says; and status
// receipts a little after the send, sometimes out of order.

export type TWebhookAnswer = { status: number; json: unknown };

/** A receipt's error, as a `failed` status carries it. */
export type TReceiptError = { code: number; title: string; details: string };

/** One try of a post, to the webhook URL set now (a retry follows the URL if a test moves it). */
function attemptPost(state: TSimState, raw: string, headers: Record<string, string>): Promise<TWebhookAnswer> {
  const target = state.options.webhookUrl;
  if (!target) return Promise.resolve({ status: 0, json: null });
  return fetch(target, { method: 'POST', headers, body: raw }).then(
    async (res) => ({ status: res.status, json: await res.json().catch(() => null) }),
    () => ({ status: 0, json: null }),
  );
}

/**
 * Posts one change (`field`, `value`) to the webhook, signed with `secret` (default: number 1's) when
 * there is one; no webhook URL: nothing is posted. Resolves with the first try's answer (what
 * `settle` waits for); retries, if it needs them, go on by themselves (`settleRetries` waits for those).
 */
export function postWebhook(
  state: TSimState,
  value: unknown,
  field = 'messages',
  secret = state.options.webhookSecret,
): Promise<TWebhookAnswer> {
  if (!state.options.webhookUrl) return Promise.resolve({ status: 0, json: null });
  const raw = JSON.stringify({ object: 'whatsapp_business_account', entry: [{ id: 'SIM', changes: [{ field, value }] }] });
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (secret) headers['x-service-signature'] = `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
  const first = attemptPost(state, raw, headers).then((answer) => {
    if (!wasTaken(answer.status)) retryUntilTaken(state, async () => (await attemptPost(state, raw, headers)).status);
    return answer;
  });
  return trackPending(state, first);
}

/**
 * Posts one status receipt for a message id (a `failed` one with the given error), dated `at` (epoch
 * ms; default now), under the metadata and secret of the firm's number the message went from.
 */
export function postReceipt(
  state: TSimState,
  id: string,
  status: string,
  to = '000000000',
  error?: TReceiptError,
  at = Date.now(),
): Promise<TWebhookAnswer> {
  const errors = error
    ? [{ code: error.code, title: error.title, message: error.title, error_data: { details: error.details } }]
    : undefined;
  const number = numberOfMessage(state, id);
  return postWebhook(
    state,
    {
      messaging_product: 'whatsapp',
      metadata: metadataOf(number),
      statuses: [{ id, status, timestamp: String(Math.floor(at / 1000)), recipient_id: to, ...(errors ? { errors } : {}) }],
    },
    'messages',
    number.secret,
  );
}

/** Posts a receipt after `delayMs`, counted as pending from now. */
export function postReceiptLater(state: TSimState, delayMs: number, id: string, status: string, to: string, error?: TReceiptError): void {
  const timer = new Promise<void>((resolve) => setTimeout(resolve, delayMs)).then(() => postReceipt(state, id, status, to, error));
  void trackPending(state, timer);
}

/** Plans sent, delivered and read for an accepted message (shuffled at outOfOrderRate), less those in `skip`. */
export function scheduleReceipts(state: TSimState, id: string, to: string, skip: Set<string>): void {
  const [sent, delivered, read] = state.options.receiptDelaysMs ?? [150, 500, 1000];
  let plan: [string, number][] = [
    ['sent', sent],
    ['delivered', delivered],
    ['read', read],
  ];
  if (Math.random() < (state.options.outOfOrderRate ?? 0.2)) {
    const delays = plan.map(([, d]) => d).sort(() => Math.random() - 0.5);
    plan = plan.map(([status], i) => [status, delays[i]!]);
  }
  for (const [status, delay] of plan) {
    if (skip.has(status)) continue;
    postReceiptLater(state, delay, id, status, to);
  }
}
