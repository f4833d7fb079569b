import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createUser } from '../../server/auth/users';
import { Communication } from '../../server/core/db/models/index';
import { startProviderSimulator, type ProviderSimulator } from '../../server/dev/provider-sim/provider-simulator';
import { createHttpClient, startTestServer, type TTestServer } from '../support/test-server';
import { failureOf } from '../support/trpc-failure';
import { WEBHOOK_SECRET } from '../support/webhook';

// Button titles counted as the client sees them (server/messaging/README.md "Quick-reply buttons"): through
// `chat.sendButtons` to the provider simulator over HTTP.

const KEY = 'titles-sim-key-0123456789';
const FAMILY = '👨\u200D👩\u200D👧';
const FAMILY_OF_FOUR = '👨\u200D👩\u200D👧\u200D👦';
const DECOMPOSED_E = 'e\u0301';

describe('button titles as the client sees them', () => {
  let sim: ProviderSimulator;
  let server: TTestServer;
  let staff: ReturnType<typeof createHttpClient>['client'];
  let amelia: { id: number };
  const sentTitles = () =>
    sim.requests
      .filter((r) => r.method === 'POST' && r.path === '/messages')
      .map((r) =>
        (r.body as { interactive: { action: { buttons: { reply: { title: string } }[] } } }).interactive.action.buttons.map(
          (b) => b.reply.title,
        ),
      );

  beforeAll(async () => {
    sim = await startProviderSimulator({ apiKey: KEY, webhookSecret: WEBHOOK_SECRET, autoReceipts: false });
    server = await startTestServer({
      MESSAGING_API_KEY: KEY,
      MESSAGING_PROVIDER_URL: sim.url,
      MESSAGING_WEBHOOK_SECRET: WEBHOOK_SECRET,
      SESSION_SECRET: 'titles-session-secret-0123456789abcdef',
    });
    sim.configure({ webhookUrl: `${server.url}/api/webhooks/chat` });
    await createUser({ email: 'sam@firm.test', name: 'Sam Staff', role: 'staff', password: 'staff-password' });
    await createUser({ email: 'dee@firm.test', name: 'Dee Director', role: 'director', password: 'director-password' });
    staff = createHttpClient(server.url).client;
    await staff.auth.signIn.mutate({ email: 'sam@firm.test', password: 'staff-password' });
    const director = createHttpClient(server.url).client;
    await director.auth.signIn.mutate({ email: 'dee@firm.test', password: 'director-password' });
    amelia = await director.clients.create.mutate({ name: 'Amelia Hart', phone: '+447700900123' });
  });
  afterAll(async () => {
    await sim?.settle();
    await sim?.close();
    await server?.stop();
  });
  beforeEach(() => {
    sim.requests.length = 0;
  });

  it('a family emoji is one character and 20 accented letters are 20: sent and kept composed', async () => {
    const question = await staff.chat.sendButtons.mutate({
      clientId: amelia.id,
      body: 'Who is coming?',
      buttons: [
        { id: 'all', title: `Family ${FAMILY}` },
        { id: 'e', title: DECOMPOSED_E.repeat(20) },
        // 15 characters as seen, 21 code points: the provider (and its simulator) takes it.
        { id: 'whole', title: `Whole family: ${FAMILY_OF_FOUR}` },
      ],
    });
    const composed = [`Family ${FAMILY}`, '\u00E9'.repeat(20), `Whole family: ${FAMILY_OF_FOUR}`];
    expect(sentTitles()).toEqual([composed]);
    expect(question.metadata.buttons?.map((b) => b.title)).toEqual(composed);
    const stored = await Communication.findByPk(question.id);
    expect((stored?.metadata as { buttons: { title: string }[] }).buttons.map((b) => b.title)).toEqual(composed);
  });

  it('refuses a 21st character as seen and a joiner that joins no emoji, sending nothing', async () => {
    const before = await Communication.count();
    for (const [title, message] of [
      [DECOMPOSED_E.repeat(21), /at most 20 characters/],
      ['Ye\u200Ds', /hidden control or text-direction character/],
      [`${FAMILY}\u200D`, /hidden control or text-direction character/],
    ] as const) {
      const refusal = await failureOf(
        staff.chat.sendButtons.mutate({ clientId: amelia.id, body: 'Question?', buttons: [{ id: 'a', title }] }),
      );
      expect(refusal.data?.code).toBe('BAD_REQUEST');
      expect(refusal.data?.fieldErrors?.buttons?.join(' ')).toMatch(message);
    }
    expect(await Communication.count()).toBe(before);
    expect(sentTitles()).toEqual([]);
  });

  it('refuses text smuggled in tags or selectors and a title that reads as another; takes a real subdivision flag', async () => {
    const tags = (letters: string) => Array.from(letters, (c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('');
    const before = await Communication.count();
    for (const [buttons, message] of [
      [[{ id: 'a', title: `🏴${tags('pwned')}\u{E007F}` }], /hidden control or text-direction character/],
      [[{ id: 'a', title: `Y${'\u{E0100}'.repeat(7)}es` }], /hidden control or text-direction character/],
      [
        [
          { id: 'a', title: 'Yes' },
          { id: 'b', title: 'Yes\u3164' },
        ],
        /same title/,
      ],
    ] as const) {
      const refusal = await failureOf(staff.chat.sendButtons.mutate({ clientId: amelia.id, body: 'Question?', buttons: [...buttons] }));
      expect(refusal.data?.code).toBe('BAD_REQUEST');
      expect(refusal.data?.fieldErrors?.buttons?.join(' ')).toMatch(message);
    }
    expect(await Communication.count()).toBe(before);
    expect(sentTitles()).toEqual([]);

    const england = `🏴${tags('gbeng')}\u{E007F}`;
    await staff.chat.sendButtons.mutate({ clientId: amelia.id, body: 'Which team?', buttons: [{ id: 'e', title: `${england} England` }] });
    expect(sentTitles()).toEqual([[`${england} England`]]);
  });
});
