import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TTestServer } from '../support/test-server';
import { cloudPayload, postWebhook, sign, textMessage } from '../support/webhook';

let server: TTestServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

describe('webhook with no secret configured', () => {
  it('refuses every POST, signed or not (fail-closed)', async () => {
    server = await startTestServer();
    const raw = JSON.stringify(cloudPayload({ messages: [textMessage('wamid.closed', '447700900123', 'hi')] }));
    expect((await postWebhook(server.url, raw, { unsigned: true })).status).toBe(401);
    expect((await postWebhook(server.url, raw, { headers: { 'x-service-signature': sign(raw, '') } })).status).toBe(401);
    expect((await postWebhook(server.url, raw, { headers: { 'x-service-webhook-secret': '' } })).status).toBe(401);
  });

  it('answers the handshake with 403 when no verify token is configured', async () => {
    server = await startTestServer();
    const res = await fetch(`${server.url}/api/webhooks/chat?hub.mode=subscribe&hub.verify_token=&hub.challenge=1`);
    expect(res.status).toBe(403);
  });

  it('accepts unsigned POSTs only with ALLOW_UNAUTHENTICATED_WEBHOOKS=true', async () => {
    server = await startTestServer({ ALLOW_UNAUTHENTICATED_WEBHOOKS: 'true' });
    const raw = JSON.stringify(cloudPayload({ messages: [textMessage('wamid.open', '447700900123', 'hi')] }));
    expect(await postWebhook(server.url, raw, { unsigned: true })).toEqual({ status: 200, json: { ok: true, received: 1, stored: 1 } });
  });
});
