import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ProviderClient } from '../../server/provider/provider-client';
import { ProviderError } from '../../server/provider/provider-errors';
import { startProviderSimulator, type ProviderSimulator } from '../../server/provider-sim/provider-simulator';
import { checkConnection } from '../../server/services/connection-check';
import { match } from '../support/matchers';

const KEY = 'client-test-key';
let sim: ProviderSimulator;
const client = (overrides: Partial<ConstructorParameters<typeof ProviderClient>[0]> = {}) =>
  new ProviderClient({ baseUrl: sim.url, apiKey: KEY, profilePath: '/whatsapp_business_profile', timeoutMs: 300, ...overrides });

beforeAll(async () => {
  sim = await startProviderSimulator({ apiKey: KEY, autoReceipts: false });
});
afterAll(() => sim?.close());
beforeEach(() => {
  sim.requests.length = 0;
});

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
    const error = await providerErrorOf(client().sendText('447700900123', 'hi'));
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
    const result = await checkConnection(client());
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
