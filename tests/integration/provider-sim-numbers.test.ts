import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FIRM_DIGITS, startProviderSimulator, type ProviderSimulator } from '../../server/dev/provider-sim/provider-simulator';

// The simulator serving several of the firm's numbers, as a BSP does: the key on a request says
// which number it is about; receipts, signatures, 24-hour windows and template catalogues follow
// that number. A stand-in webhook plays the app and records what is posted, raw, with its signature.

const KEY_1 = 'numbers-key-one';
const KEY_2 = 'numbers-key-two';
const KEY_3 = 'numbers-key-three';
const SECRET_1 = 'secret-of-number-one';
const SECRET_2 = 'secret-of-number-two';
const DIGITS_2 = '442079460002';
const DIGITS_3 = '442079460003';
const FOREIGN = '15550009999';
const CLIENT = '447700900123';
const OTHER_CLIENT = '447700900456';
const NUMBER_2_TEMPLATES = [{ name: 'office_two_hello', language: 'en_GB', status: 'APPROVED', category: 'UTILITY', body: 'Hello {{1}}' }];

type TPost = { raw: string; signature: string | undefined; field: string; value: Record<string, unknown> };
let posts: TPost[] = [];
let hook: http.Server;
let sim: ProviderSimulator;

beforeAll(async () => {
  hook = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const payload = JSON.parse(raw) as { entry: { changes: { field: string; value: Record<string, unknown> }[] }[] };
      const change = payload.entry[0]!.changes[0]!;
      posts.push({ raw, signature: req.headers['x-service-signature'] as string | undefined, ...change });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  sim = await startProviderSimulator({
    apiKey: KEY_1,
    webhookSecret: SECRET_1,
    webhookUrl: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`,
    receiptDelaysMs: [5, 10, 15],
    outOfOrderRate: 0,
    webhookRetries: false,
    numbers: [
      { apiKey: KEY_2, digits: DIGITS_2, phoneNumberId: 'PNID-2', webhookSecret: SECRET_2, templates: NUMBER_2_TEMPLATES },
      { apiKey: KEY_3, digits: DIGITS_3, phoneNumberId: 'PNID-3' },
    ],
  });
});
afterAll(async () => {
  await sim?.close();
  await new Promise((resolve) => hook?.close(resolve));
});
beforeEach(async () => {
  await sim.settle();
  sim.configure({ enforceWindow: false, apiMode: 'cloud' });
  sim.requests.length = 0;
  posts = [];
});

const signatureWith = (secret: string, raw: string) => `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
const call = (path: string, key: string | null, body?: unknown) =>
  fetch(`${sim.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { 'PROVIDER-API-KEY': key } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const envelope = { messaging_product: 'whatsapp', recipient_type: 'individual' };
const tplHello = { name: 'hello_world', language: { code: 'en_US' } };
const sendText = (key: string, to: string, body: string) =>
  call('/messages', key, { ...envelope, to, type: 'text', text: { body, preview_url: false } });
const sendTemplate = (key: string, to: string, name: string, language: string, values: string[]) =>
  call('/messages', key, {
    ...envelope,
    to,
    type: 'template',
    template: {
      name,
      language: { code: language },
      components: [{ type: 'body', parameters: values.map((text) => ({ type: 'text', text })) }],
    },
  });
const idOf = async (res: Response) => ((await res.json()) as { messages: { id: string }[] }).messages[0]!.id;
const receiptsOf = (id: string) =>
  posts.filter((p) => ((p.value.statuses as { id: string }[] | undefined) ?? []).some((status) => status.id === id));
const inboundOf = (id: string) => posts.find((p) => ((p.value.messages as { id: string }[] | undefined) ?? []).some((m) => m.id === id))!;
const statusOf = (post: TPost) => (post.value.statuses as { status: string; errors?: { code: number }[] }[])[0]!;

describe('a send goes out from the number its key belongs to', () => {
  it('is recorded from number 2, and its receipts carry number 2 metadata, signed with number 2 secret', async () => {
    const res = await sendText(KEY_2, CLIENT, 'From the second office');
    expect(res.status).toBe(200);
    const id = await idOf(res);
    expect(sim.accepted.at(-1)).toEqual({ id, to: CLIENT, firm: DIGITS_2 });
    expect(sim.message(id)).toMatchObject({ direction: 'outbound', peer: CLIENT, firm: DIGITS_2 });
    const listed = (await (await call('/__sim/messages', null)).json()) as { id: string; firm: string }[];
    expect(listed.find((m) => m.id === id)?.firm).toBe(DIGITS_2);
    const recorded = (await (await call('/__sim/requests', null)).json()) as { path: string; firm?: string }[];
    expect(recorded.filter((r) => r.path === '/messages').map((r) => r.firm)).toEqual([DIGITS_2]);

    await sim.settle();
    const receipts = receiptsOf(id);
    // Each receipt is its own timed post, so a loaded machine may deliver them in any order.
    expect(receipts.map((p) => statusOf(p).status).sort()).toEqual(['delivered', 'read', 'sent']);
    for (const post of receipts) {
      expect(post.value.metadata).toEqual({ display_phone_number: DIGITS_2, phone_number_id: 'PNID-2' });
      expect(post.signature).toBe(signatureWith(SECRET_2, post.raw));
      expect(post.signature).not.toBe(signatureWith(SECRET_1, post.raw));
    }
  });

  it('number 1 is as before: its digits and SIM, signed with the top-level secret', async () => {
    const id = await idOf(await sendText(KEY_1, CLIENT, 'From the first office'));
    expect(sim.accepted.at(-1)).toEqual({ id, to: CLIENT, firm: FIRM_DIGITS });
    await sim.settle();
    const receipts = receiptsOf(id);
    expect(receipts).toHaveLength(3);
    for (const post of receipts) {
      expect(post.value.metadata).toEqual({ display_phone_number: FIRM_DIGITS, phone_number_id: 'SIM' });
      expect(post.signature).toBe(signatureWith(SECRET_1, post.raw));
    }
  });

  it('a number without its own secret signs with number 1 secret, under its own metadata', async () => {
    const id = await idOf(await sendText(KEY_3, CLIENT, 'From the third office'));
    await sim.settle();
    const [sent] = receiptsOf(id);
    expect(sent!.value.metadata).toEqual({ display_phone_number: DIGITS_3, phone_number_id: 'PNID-3' });
    expect(sent!.signature).toBe(signatureWith(SECRET_1, sent!.raw));
  });

  it('refuses an unknown or missing key with 401, recording no firm number', async () => {
    for (const key of ['not-a-key', null]) {
      const res = await call('/messages', key, { ...envelope, to: CLIENT, type: 'text', text: { body: 'x', preview_url: false } });
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: { code: 401 } });
    }
    expect(sim.requests.map((r) => r.firm)).toEqual([undefined, undefined]);
    expect((await call('/v1/configs/templates', 'not-a-key')).status).toBe(401);
  });
});

describe('an inbound message goes to one of the firm numbers', () => {
  it('to number 2 (toNumber): number 2 metadata and signature, and only number 2 window opens', async () => {
    sim.configure({ enforceWindow: true, apiMode: 'onprem' });
    const client = '447700900321'; // one who has written to no number yet
    const res = await call('/__sim/inbound', null, { from: client, body: 'Hello second office', toNumber: DIGITS_2 });
    const { id } = (await res.json()) as { id: string };
    const post = inboundOf(id);
    expect(post.value.metadata).toEqual({ display_phone_number: DIGITS_2, phone_number_id: 'PNID-2' });
    expect(post.signature).toBe(signatureWith(SECRET_2, post.raw));
    expect(sim.message(id)).toMatchObject({ direction: 'inbound', peer: client, firm: DIGITS_2 });

    const fromNumber1 = await sendText(KEY_1, client, 'Free text from number 1');
    expect(fromNumber1.status).toBe(400);
    expect(await fromNumber1.json()).toMatchObject({ errors: [{ code: 470 }] });
    expect((await sendText(KEY_3, client, 'Free text from number 3')).status).toBe(400);
    expect((await sendText(KEY_2, client, 'Free text from number 2')).status).toBe(200);
    // A template needs no window.
    expect((await call('/messages', KEY_1, { ...envelope, to: client, type: 'template', template: tplHello })).status).toBe(200);
  });

  it('on the cloud API, number 1 free text is accepted and then fails by receipt (131047) under number 1 metadata', async () => {
    sim.configure({ enforceWindow: true, apiMode: 'cloud' });
    await sim.sendInbound(OTHER_CLIENT, 'Hello second office', undefined, DIGITS_2);
    const refused = await idOf(await sendText(KEY_1, OTHER_CLIENT, 'Free text from number 1'));
    const taken = await idOf(await sendText(KEY_2, OTHER_CLIENT, 'Free text from number 2'));
    await sim.settle();
    const [failed] = receiptsOf(refused);
    expect(statusOf(failed!)).toMatchObject({ status: 'failed', errors: [{ code: 131047 }] });
    expect(failed!.value.metadata).toEqual({ display_phone_number: FIRM_DIGITS, phone_number_id: 'SIM' });
    expect(
      receiptsOf(taken)
        .map((p) => statusOf(p).status)
        .sort(),
    ).toEqual(['delivered', 'read', 'sent']);
  });

  it('any kind may name the number; a button press answers to the number that asked; markInbound takes a number', async () => {
    const sent = await sim.sendInboundKind({ kind: 'location', from: CLIENT, latitude: 51.5, longitude: -0.1, toNumber: DIGITS_3 });
    expect(inboundOf(sent.id).value.metadata).toEqual({ display_phone_number: DIGITS_3, phone_number_id: 'PNID-3' });
    const question = await idOf(
      await call('/messages', KEY_2, {
        ...envelope,
        to: CLIENT,
        type: 'interactive',
        interactive: {
          type: 'button',
          body: { text: 'Which day?' },
          action: { buttons: [{ type: 'reply', reply: { id: 'mon', title: 'Monday' } }] },
        },
      }),
    );
    const pressed = await sim.pressButton(question, 'mon');
    expect(inboundOf(pressed.id).value.metadata).toEqual({ display_phone_number: DIGITS_2, phone_number_id: 'PNID-2' });

    sim.configure({ enforceWindow: true, apiMode: 'onprem' });
    sim.markInbound('447700900789', Date.now(), DIGITS_3);
    expect((await sendText(KEY_3, '447700900789', 'open')).status).toBe(200);
    expect((await sendText(KEY_2, '447700900789', 'closed')).status).toBe(400);
  });

  it('a number the simulator does not serve is posted as FOREIGN, signed as number 1, opening no window of the firm', async () => {
    sim.configure({ enforceWindow: true, apiMode: 'onprem' });
    const client = '447700900999';
    const res = await call('/__sim/inbound', null, { kind: 'text', from: client, body: 'Meant for someone else', toNumber: FOREIGN });
    const { id } = (await res.json()) as { id: string };
    const post = inboundOf(id);
    expect(post.value.metadata).toEqual({ display_phone_number: FOREIGN, phone_number_id: 'FOREIGN' });
    expect(post.signature).toBe(signatureWith(SECRET_1, post.raw));
    for (const key of [KEY_1, KEY_2, KEY_3]) expect((await sendText(key, client, 'hello')).status).toBe(400);
  });

  it('refuses a toNumber that is not digits', async () => {
    const res = await call('/__sim/inbound', null, { from: CLIENT, body: 'x', toNumber: '+44 20' });
    expect(res.status).toBe(400);
  });

  it('a number reacts to and marks read only what it received itself', async () => {
    const { id } = await sim.sendInbound(CLIENT, 'To number 1', undefined, FIRM_DIGITS);
    const react = (key: string) =>
      call('/messages', key, { ...envelope, to: CLIENT, type: 'reaction', reaction: { message_id: id, emoji: '👍' } });
    const read = (key: string) => call('/messages', key, { messaging_product: 'whatsapp', status: 'read', message_id: id });
    expect(await (await react(KEY_2)).json()).toMatchObject({ error: { code: 131009 } });
    expect(await (await read(KEY_2)).json()).toMatchObject({ error: { code: 131009 } });
    expect((await react(KEY_1)).status).toBe(200);
    expect(await (await read(KEY_1)).json()).toEqual({ success: true });
  });
});

describe('each number has its own template catalogue, or the shared one', () => {
  const names = async (key: string) =>
    ((await (await call('/v1/configs/templates?limit=50', key)).json()) as { waba_templates: { name: string }[] }).waba_templates.map(
      (t) => t.name,
    );

  it('lists number 2 templates with key 2, the shared list with the other keys', async () => {
    expect(await names(KEY_2)).toEqual(['office_two_hello']);
    expect(await names(KEY_1)).toContain('hello_world');
    expect(await names(KEY_3)).toEqual(await names(KEY_1));
  });

  it('checks a template send against the sending number catalogue', async () => {
    expect((await sendTemplate(KEY_2, CLIENT, 'office_two_hello', 'en_GB', ['Amelia'])).status).toBe(200);
    expect(await (await sendTemplate(KEY_1, CLIENT, 'office_two_hello', 'en_GB', ['Amelia'])).json()).toMatchObject({
      error: { code: 132001 },
    });
    expect(await (await call('/messages', KEY_2, { ...envelope, to: CLIENT, type: 'template', template: tplHello })).json()).toMatchObject({
      error: { code: 132001 },
    });
  });
});

it('refuses numbers that share a key or digits, or whose digits are not 8-15 digits', () => {
  const number = { apiKey: 'k2', digits: DIGITS_2, phoneNumberId: 'P2' };
  expect(() => startProviderSimulator({ apiKey: 'k2', numbers: [number] })).toThrow(/apiKey/);
  expect(() => startProviderSimulator({ apiKey: 'k1', numbers: [number, { ...number, apiKey: 'k3', phoneNumberId: 'P3' }] })).toThrow(
    /digits/,
  );
  expect(() => startProviderSimulator({ apiKey: 'k1', numbers: [{ ...number, digits: '+44' }] })).toThrow(/8-15/);
});
