import { createHmac } from 'node:crypto';

export const WEBHOOK_SECRET = 'whsec-test-0123456789abcdef';
export const VERIFY_TOKEN = 'verify-me-please';

export function sign(body: string | Buffer, secret = WEBHOOK_SECRET): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

export type TPostOptions = { headers?: Record<string, string>; query?: string; unsigned?: boolean };

/** POSTs a body to the webhook, signed in X-Service-Signature unless told otherwise. */
export async function postWebhook(baseUrl: string, body: unknown, options: TPostOptions = {}) {
  const raw = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
  if (!options.unsigned && !options.headers) headers['x-service-signature'] = `sha256=${sign(raw)}`;
  const res = await fetch(`${baseUrl}/api/webhooks/chat${options.query ?? ''}`, {
    method: 'POST',
    headers,
    body: typeof raw === 'string' ? raw : new Uint8Array(raw),
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, json: json as Record<string, unknown> };
}

export function cloudPayload(value: Record<string, unknown>) {
  return {
    object: 'whatsapp_business_account',
    entry: [{ id: 'WABA', changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', ...value } }] }],
  };
}

export function textMessage(id: string, from: string, body: string, timestamp = '1763700000') {
  return { from, id, timestamp, type: 'text', text: { body } };
}

export function statusItem(id: string, status: string, timestamp = '1763700100') {
  return { id, status, timestamp, recipient_id: '447700900123' };
}

export { sql } from './sql';
