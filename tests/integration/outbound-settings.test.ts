import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Communication } from '../../server/core/db/models/index';
import { startLiveSetup, type TLiveSetup } from '../support/live-setup';
import { match } from '../support/matchers';

let live: TLiveSetup;
beforeAll(async () => {
  live = await startLiveSetup();
});
afterAll(() => live?.stop());

describe('chat settings', () => {
  it('shows the firm number, the webhook URL on the public site, and the mode', async () => {
    expect(await live.staff.settings.chat.query()).toMatchObject({
      firmPhone: '+44 20 7946 0000',
      webhookUrl: 'https://chat.firm.example/api/webhooks/chat',
      mode: 'live',
    });
  });

  it('sends a test message to a typed number and records it', async () => {
    const sent = await live.staff.settings.sendTest.mutate({ to: '+44 7700 900999', body: 'Test from Settings' });
    expect(sent).toMatchObject({ status: 'sent', peerPhone: '447700900999', clientId: null });
    expect(await Communication.findByPk(sent.id)).not.toBeNull();
  });

  it('Check connection: Live for a director, FORBIDDEN for staff (refused on the server)', async () => {
    expect(await live.director.settings.checkConnection.mutate()).toMatchObject({ status: 'Live' });
    const before = live.sim.requests.length;
    await expect(live.staff.settings.checkConnection.mutate()).rejects.toMatchObject({ data: { code: 'FORBIDDEN' } });
    expect(live.sim.requests.length).toBe(before);
  });

  it('lists the firm templates with placeholders', async () => {
    const templates = await live.staff.chat.templates.query();
    expect(templates.map((t) => t.id)).toEqual(
      match.arrayContaining(['appointment-reminder', 'document-request', 'hearing-date', 'payment-reminder', 'please-call-us']),
    );
    expect(templates.every((t) => /\{\{client_name\}\}/.test(t.body))).toBe(true);
  });
});

describe('the provider timeout, through the app (10 s in production; 300 ms here)', () => {
  const TIMEOUT_MS = 300;
  let slow: TLiveSetup;
  beforeAll(async () => {
    slow = await startLiveSetup({}, { providerTimeoutMs: TIMEOUT_MS });
  });
  afterAll(() => slow?.stop());

  it('leaves the record pending with an unknown outcome when the provider hangs (it may have taken the message)', async () => {
    slow.sim.queueResponse({ hang: true });
    const started = Date.now();
    const record = await slow.staff.chat.send.mutate({ to: '+44 7700 900123', body: 'Will time out' });
    expect(record).toMatchObject({
      status: 'pending',
      metadata: { outcome: 'unknown' },
      error: match.stringMatching(/^Unknown — .*did not answer in time/),
    });
    // Cut off by the timeout, not answered early.
    expect(Date.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS);
    expect(await Communication.findOne({ where: { body: 'Will time out' } })).toMatchObject({ status: 'pending', error: record.error });
  });
});
