import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProviderClient } from '../../server/provider/provider-client';
import { ProviderError } from '../../server/provider/provider-errors';
import { startProviderSimulator, type ProviderSimulator } from '../../server/dev/provider-sim/provider-simulator';
import { checkConnection } from '../../server/settings/connection-check';
import { match } from '../support/matchers';

const KEY = 'client-test-key';
let sim: ProviderSimulator;
// Answered calls get time enough on a busy machine; a provider that hangs is given up after 1 s (the
// simulator, in this process, must have taken the request by then, or its scripted hang waits for the next).
const HANG_TIMEOUT = { timeoutMs: 1_000 };
const client = (overrides: Partial<ConstructorParameters<typeof ProviderClient>[0]> = {}) =>
  new ProviderClient({ baseUrl: sim.url, apiKey: KEY, profilePath: '/whatsapp_business_profile', timeoutMs: 5_000, ...overrides });

// A simulator of each test's own: a scripted answer one test left unused never answers another's call.
beforeEach(async () => {
  sim = await startProviderSimulator({ apiKey: KEY, autoReceipts: false });
});
afterEach(() => sim?.close());

async function providerErrorOf(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

describe('provider client', () => {
  it('without a key makes no request and says messaging is not configured', async () => {
    const error = await providerErrorOf(client({ apiKey: undefined }).sendText('447700900123', 'hi'));
    expect(error).toMatchObject({ kind: 'not_configured', message: 'Chat messaging is not configured (missing API key).' });
    expect(sim.requests).toHaveLength(0);
  });

  it('times out after its timeout while the provider hangs', async () => {
    sim.queueResponse({ hang: true });
    const started = Date.now();
    const error = await providerErrorOf(client(HANG_TIMEOUT).sendText('447700900123', 'hi'));
    expect(error).toMatchObject({ kind: 'timeout', message: 'The messaging service timed out; try again.' });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('reports a network error when nothing listens', async () => {
    const error = await providerErrorOf(client({ baseUrl: 'http://127.0.0.1:9' }).sendText('447700900123', 'hi'));
    expect(error).toMatchObject({ kind: 'network', message: 'The messaging service could not be reached.' });
  });

  it('treats a 2xx without messages[0].id as unexpected, not success', async () => {
    sim.queueResponse({ status: 200, body: { messages: [] } });
    expect((await providerErrorOf(client().sendText('447700900123', 'hi'))).kind).toBe('unexpected');
  });

  it('never puts the key in an error message', async () => {
    sim.queueResponse({ status: 401 });
    const error = await providerErrorOf(client().sendText('447700900123', 'hi'));
    expect(`${error.message} ${error.detail} ${error.stack}`).not.toContain(KEY);
  });

  it('reads the profile with a GET that sends nothing', async () => {
    const profile = await client().getProfile();
    expect(profile).toMatchObject({ verifiedName: 'Ashdown & Vale Solicitors', qualityRating: 'GREEN' });
    expect(sim.requests).toEqual([match.objectContaining({ method: 'GET', path: '/whatsapp_business_profile', apiKey: KEY })]);
  });
});

describe('connection check', () => {
  it.each([
    ['Unauthorized', { status: 401 }, /MESSAGING_API_KEY/],
    ['Unauthorized', { status: 403 }, /MESSAGING_API_KEY/],
    ['Not provisioned', { status: 404 }, /404/],
    ['Rate-limited', { status: 429 }, /429/],
    ['Error', { status: 500 }, /^HTTP 500/],
    ['Error', { status: 400, shape: 'cloud' as const, details: 'bad field' }, /^HTTP 400: bad field$/],
    ['Error', { status: 302, body: {} }, /^HTTP 302/],
    ['Unreachable', { hang: true as const }, /timed out/],
  ] as const)('maps the provider answer to %s', async (status, scripted, detail) => {
    sim.queueResponse(scripted);
    const result = await checkConnection(client('hang' in scripted ? HANG_TIMEOUT : {}));
    expect(result.status).toBe(status);
    expect(result.detail).toMatch(detail);
  });

  it('is Live with the verified name and quality rating on success', async () => {
    expect(await checkConnection(client())).toEqual({
      status: 'Live',
      detail: 'Verified name: Ashdown & Vale Solicitors · Quality rating: GREEN',
    });
  });

  it('is Unreachable on a network error and Demo mode without a key', async () => {
    expect((await checkConnection(client({ baseUrl: 'http://127.0.0.1:9' }))).status).toBe('Unreachable');
    expect((await checkConnection(null)).status).toBe('Demo mode');
  });
});

describe('what a lost answer means (README "Sending messages", Unknown outcome)', () => {
  it('a send that times out, or whose connection breaks after the request went, may have been acted on', async () => {
    sim.queueResponse({ hang: true });
    expect(await providerErrorOf(client(HANG_TIMEOUT).sendText('447700900123', 'hi'))).toMatchObject({
      kind: 'timeout',
      outcomeUnknown: true,
    });

    const reset = http.createServer((req) => req.on('end', () => req.socket.destroy()).resume());
    await new Promise<void>((resolve) => reset.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(reset.address() as AddressInfo).port}`;
      expect(await providerErrorOf(client({ baseUrl: url }).sendText('447700900123', 'hi'))).toMatchObject({
        kind: 'network',
        outcomeUnknown: true,
      });
    } finally {
      await new Promise((resolve) => reset.close(resolve));
    }
  });

  it('a connection never made, a refusal (any 4xx) and a read that fails are not: nothing was sent', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    expect(await providerErrorOf(client({ baseUrl: url }).sendText('447700900123', 'hi'))).toMatchObject({
      kind: 'network',
      outcomeUnknown: false,
    });
    for (const status of [400, 401, 404, 429, 418]) {
      sim.queueResponse({ status, body: {} });
      expect(await providerErrorOf(client().sendText('447700900123', 'hi'))).toMatchObject({ status, outcomeUnknown: false });
    }
    sim.queueResponse({ hang: true });
    expect(await providerErrorOf(client(HANG_TIMEOUT).getProfile())).toMatchObject({ kind: 'timeout', outcomeUnknown: false });
    sim.queueResponse({ status: 503 });
    expect(await providerErrorOf(client().getProfile())).toMatchObject({ kind: 'server_error', outcomeUnknown: false });
  });

  it('any 5xx to a send may follow the provider taking it (the provider, or a proxy in front of it): unknown, not a refusal', async () => {
    for (const status of [500, 502, 503, 504]) {
      sim.queueResponse({ status });
      expect(await providerErrorOf(client().sendText('447700900123', 'hi'))).toMatchObject({
        kind: 'server_error',
        status,
        outcomeUnknown: true,
      });
    }
    // The same for a reaction and a read mark: their callers decide what a lost answer means.
    sim.queueResponse({ status: 503 });
    expect(await providerErrorOf(client().sendReaction('447700900123', { messageId: 'wamid.x', emoji: '👍' }))).toMatchObject({
      outcomeUnknown: true,
    });
    sim.queueResponse({ status: 500 });
    expect(await providerErrorOf(client().markRead('wamid.x'))).toMatchObject({ outcomeUnknown: true });
  });

  it('a 5xx whose body is cut off is of unknown outcome too; a 4xx cut off is still a refusal', async () => {
    const cut = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(req.url === '/refused/messages' ? 400 : 500, { 'content-type': 'application/json', 'content-length': '200' });
        res.write('{"error":', () => res.socket?.destroy()); // the head and a part of the body go, then the connection drops
      });
    });
    await new Promise<void>((resolve) => cut.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(cut.address() as AddressInfo).port}`;
      expect(await providerErrorOf(client({ baseUrl: url }).sendText('447700900123', 'hi'))).toMatchObject({
        status: 500,
        outcomeUnknown: true,
      });
      expect(await providerErrorOf(client({ baseUrl: `${url}/refused` }).sendText('447700900123', 'hi'))).toMatchObject({
        status: 400,
        outcomeUnknown: false,
      });
    } finally {
      cut.closeAllConnections();
      await new Promise((resolve) => cut.close(resolve));
    }
  });

  it('an accepted send without a message id is of unknown outcome', async () => {
    sim.queueResponse({ status: 200, body: { messages: [] } });
    expect(await providerErrorOf(client().sendText('447700900123', 'hi'))).toMatchObject({ kind: 'unexpected', outcomeUnknown: true });
  });

  it('follows no redirect, and says where it pointed', async () => {
    sim.queueResponse({ status: 307, headers: { location: 'http://127.0.0.1:9/elsewhere?token=secret' }, body: {} });
    const error = await providerErrorOf(client().sendText('447700900123', 'hi'));
    expect(error).toMatchObject({ kind: 'redirect', outcomeUnknown: false });
    expect(error.message).toBe(
      'The messaging service answered with a redirect (HTTP 307) to 127.0.0.1:9, which is not followed: check MESSAGING_PROVIDER_URL.',
    );
  });
});

describe("a media link on the provider's host", () => {
  it('collapses leading slashes, so no proxy in front of the provider reads the path as another host', async () => {
    const targets: (string | undefined)[] = [];
    const provider = http.createServer((req, res) => {
      targets.push(req.url);
      res.end('file');
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = provider.address() as AddressInfo;
      const media = client({ baseUrl: `http://127.0.0.1:${port}` });
      for (const link of [`http://x//127.0.0.1:${port}/x?y=1`, 'https://cdn.example///evil.example/p', 'https://cdn.example/m/1']) {
        const file = await media.downloadMedia(link);
        for await (const chunk of file.body) expect(chunk).toBeTruthy();
      }
      expect(targets).toEqual([`/127.0.0.1:${port}/x?y=1`, '/evil.example/p', '/m/1']);
    } finally {
      await new Promise<void>((resolve) => provider.close(() => resolve()));
    }
  });
});

describe('the simulator', () => {
  it('survives an upload cut off mid-body and keeps answering', async () => {
    const { port } = new URL(sim.url);
    await new Promise<void>((resolve) => {
      const req = http.request({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/media',
        headers: { 'PROVIDER-API-KEY': KEY, 'content-type': 'multipart/form-data; boundary=cut', 'content-length': '100000' },
      });
      req.on('error', () => resolve());
      req.write('--cut\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF');
      void sim
        .waitForRequest((r) => r.path === '/media')
        .then(() => {
          req.destroy();
          resolve();
        });
    });
    expect((await client().getProfile()).verifiedName).toBeTruthy();
  });
});

describe('reactions, buttons, reads and template headers (README "Reactions", "Quick-reply buttons", "Read receipts")', () => {
  const CLIENT = '447700900123';

  it('reacts to a received message, and the simulator takes it; an unknown message is refused with the provider’s code', async () => {
    const { id } = await sim.sendInbound(CLIENT, 'hello'); // no webhook: the simulator still holds it as received
    expect((await client().sendReaction(CLIENT, { messageId: id, emoji: '👍' })).id).toMatch(/^wamid\.SIM/);
    expect(sim.requests.at(-1)?.body).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: CLIENT,
      type: 'reaction',
      reaction: { message_id: id, emoji: '👍' },
    });
    expect(await providerErrorOf(client().sendReaction(CLIENT, { messageId: 'wamid.NEVER', emoji: '👍' }))).toMatchObject({
      kind: 'bad_request',
      code: 131009,
    });
  });

  it('sends a question with reply buttons in the interactive shape', async () => {
    const buttons = [
      { id: 'yes', title: 'Yes' },
      { id: 'no', title: 'No' },
    ];
    const { id } = await client().sendButtons(CLIENT, { body: 'Are you free?', buttons });
    expect(sim.requests.at(-1)?.body).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: CLIENT,
      type: 'interactive',
      interactive: {
        type: 'button',
        body: { text: 'Are you free?' },
        action: { buttons: buttons.map((reply) => ({ type: 'reply', reply })) },
      },
    });
    expect(sim.message(id)?.buttons).toEqual(buttons);
  });

  it('marks a received message read, and takes anything but {success: true} as a failure', async () => {
    const { id } = await sim.sendInbound(CLIENT, 'read me');
    await client().markRead(id);
    expect(sim.requests.at(-1)?.body).toEqual({ messaging_product: 'whatsapp', status: 'read', message_id: id });
    expect(sim.message(id)?.readAt).toEqual(match.any(Number));
    expect(await providerErrorOf(client().markRead('wamid.NEVER'))).toMatchObject({ kind: 'bad_request', code: 131009 });
    sim.queueResponse({ status: 200, body: {} });
    expect(await providerErrorOf(client().markRead(id))).toMatchObject({ kind: 'unexpected' });
  });

  it('sends a template with a document header first, its filename kept, and leaves components out when there is nothing to fill', async () => {
    const media = await sim.addMedia({ bytes: Buffer.from('%PDF-1.4\n%%EOF\n'), mimeType: 'application/pdf' });
    await client().sendTemplate(CLIENT, {
      name: 'document_attached',
      language: 'en_GB',
      params: ['Amelia', 'HART-1'],
      header: { kind: 'document', id: media.id, fileName: 'letter.pdf' },
    });
    expect((sim.requests.at(-1)?.body as { template: unknown }).template).toEqual({
      name: 'document_attached',
      language: { code: 'en_GB' },
      components: [
        { type: 'header', parameters: [{ type: 'document', document: { id: media.id, filename: 'letter.pdf' } }] },
        {
          type: 'body',
          parameters: [
            { type: 'text', text: 'Amelia' },
            { type: 'text', text: 'HART-1' },
          ],
        },
      ],
    });
    await client().sendTemplate(CLIENT, { name: 'hello_world', language: 'en_US', params: [] });
    expect((sim.requests.at(-1)?.body as { template: unknown }).template).toEqual({ name: 'hello_world', language: { code: 'en_US' } });
  });
});
