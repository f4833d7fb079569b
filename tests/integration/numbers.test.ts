import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Case } from '../../server/core/db/models/index';
import { startLiveSetup, type TLiveSetup } from '../support/live-setup';
import { cloudPayload, postWebhook, sql, textMessage } from '../support/webhook';
import { match } from '../support/matchers';

// Numbers and contacts (server/decisions/0009-inbound-matching-by-last-9-digits.md): a client has several numbers; exact beats last-9; link adds the
// number and moves its messages (undo: unlink); a reply goes to the number the conversation is with.

let live: TLiveSetup;
let seq = 0;
const inbound = (from: string, body: string, name?: string) =>
  postWebhook(
    live.server.url,
    cloudPayload({
      ...(name ? { contacts: [{ profile: { name }, wa_id: from }] } : {}),
      messages: [textMessage(`wamid.num-${++seq}`, from, body)],
    }),
  );
const clientOf = async (body: string) =>
  (await sql<{ client_id: number | null }>(live.server.databaseUrl, 'SELECT client_id FROM communications WHERE body = $1', [body]))[0]
    ?.client_id;
const audit = (action: string) =>
  sql<{ user_id: number | null; subject: string; detail: Record<string, unknown>; ip: string | null }>(
    live.server.databaseUrl,
    'SELECT user_id, subject, detail, ip FROM audit_events WHERE action = $1 ORDER BY id',
    [action],
  );
const sentTo = () => live.sim.requests.filter((r) => r.path.endsWith('/messages')).map((r) => (r.body as { to: string }).to);

beforeAll(async () => {
  live = await startLiveSetup();
});
afterAll(() => live?.stop());
beforeEach(() => {
  live.sim.requests.length = 0;
});

describe('numbers are read as people type them', () => {
  it.each([
    ['international', '+44 7700 900201', '447700900201'],
    ["national, read in the firm's country (FIRM_PHONE +44)", '07700 900202', '447700900202'],
    ['00-prefixed', '0044 7700 900203', '447700900203'],
    ['another country', '+353 87 123 4567', '353871234567'],
  ])('%s: %s is stored as E.164 digits', async (_label, typed, digits) => {
    const client = await live.staff.clients.create.mutate({ name: `Typed ${digits}`, phone: typed });
    expect(client.numbers).toEqual([match.objectContaining({ digits, primary: true })]);
    expect(client.phone).toBe(`+${digits}`);
  });

  it.each(['12-34', '+44 12', 'call me', '+99 1234 5678'])('refuses %s with a message naming the format expected', async (typed) => {
    await expect(live.staff.clients.create.mutate({ name: 'Nobody', phone: typed })).rejects.toMatchObject({
      data: { code: 'BAD_REQUEST', fieldErrors: { phone: [match.stringMatching(/country code, such as \+44 7700 900123/)] } },
    });
  });
});

describe('a number another client has', () => {
  it('is refused with CONFLICT naming that client, and added when a person confirms', async () => {
    const first = await live.staff.clients.create.mutate({ name: 'Olu Adeyemi', phone: '+44 7700 900301' });
    await expect(live.staff.clients.create.mutate({ name: 'Ada Adeyemi', phone: '07700 900301' })).rejects.toMatchObject({
      data: { code: 'CONFLICT', fieldErrors: { phone: [match.stringContaining("already Olu Adeyemi's number")] } },
    });
    const second = await live.staff.clients.create.mutate({ name: 'Ada Adeyemi', phone: '07700 900301', confirm: true });
    await expect(live.staff.clients.addNumber.mutate({ clientId: second.id, phone: '+44 7700 900301' })).resolves.toMatchObject({
      id: second.id,
    });
    const other = await live.staff.clients.create.mutate({ name: 'Kemi Adeyemi', phone: '+44 7700 900302' });
    await expect(live.staff.clients.addNumber.mutate({ clientId: other.id, phone: '+44 7700 900301' })).rejects.toMatchObject({
      data: { code: 'CONFLICT' },
    });
    expect(
      (await live.staff.clients.addNumber.mutate({ clientId: other.id, phone: '+44 7700 900301', confirm: true })).numbers.map(
        (n) => n.digits,
      ),
    ).toEqual(['447700900302', '447700900301']);
    expect(first.id).not.toBe(second.id);

    // A number three clients share is nobody's in particular: its messages stay unlinked.
    await inbound('447700900301', 'which Adeyemi is this?');
    expect(await clientOf('which Adeyemi is this?')).toBeNull();
  });
});

describe('matching inbound messages', () => {
  it('an exact full number beats the last 9 digits; a last-9 tie with neither exact stays unlinked', async () => {
    const daniel = await live.staff.clients.create.mutate({ name: 'Daniel Reyes', phone: '+44 7700 900555' });
    await live.staff.clients.create.mutate({ name: 'Daniela Reyes', phone: '+353 77 0090 0555' });
    await inbound('447700900555', 'Daniel writing');
    await inbound('33700900555', 'someone with both last 9');
    expect(await clientOf('Daniel writing')).toBe(daniel.id);
    expect(await clientOf('someone with both last 9')).toBeNull();
    const thread = (await live.staff.inbox.threads.query()).threads.find((t) => t.phone === '33700900555');
    expect(thread).toMatchObject({ match: 'ambiguous' });
    expect(thread?.candidates.map((c) => [c.name, c.numbers])).toEqual([
      ['Daniel Reyes', ['447700900555']],
      ['Daniela Reyes', ['3537700900555']],
    ]);
  });

  it('a number linked only by its last 9 digits is offered as a reply target, never chosen by default', async () => {
    const chloe = await live.staff.clients.create.mutate({ name: 'Chloe Martin', phone: '+44 7700 900789' });
    await inbound('33700900789', 'same last nine, French number');
    expect(await clientOf('same last nine, French number')).toBe(chloe.id); // the spec's rule links it
    expect((await live.staff.chat.send.mutate({ clientId: chloe.id, body: 'Privileged: to Chloe' })).peerPhone).toBe('447700900789');
    expect((await live.staff.chat.send.mutate({ clientId: chloe.id, to: '33700900789', body: 'chosen on purpose' })).peerPhone).toBe(
      '33700900789',
    );
  });

  it('an added number files its later messages under the client', async () => {
    const client = await live.staff.clients.create.mutate({ name: 'Second Phone', phone: '+44 7700 900401' });
    await live.staff.clients.addNumber.mutate({ clientId: client.id, phone: '+44 7700 900402' });
    await inbound('447700900402', 'from my work phone');
    expect(await clientOf('from my work phone')).toBe(client.id);
    expect((await audit('client.number_add')).at(-1)).toMatchObject({ subject: `client:${client.id}`, detail: { digits: '447700900402' } });
  });
});

describe('the stranger linked to a client', () => {
  it('link adds the number, moves its messages, files the next one, and the reply goes to the stranger, never the client', async () => {
    const benedict = await live.staff.clients.create.mutate({ name: 'Benedict Okafor', phone: '+44 7700 900456' });
    const openCase = await Case.create({ clientId: benedict.id, reference: 'OKAF-1', title: 'Unfair dismissal' });
    await inbound('447700900999', 'I need advice on my divorce', 'Stranger');
    expect(await clientOf('I need advice on my divorce')).toBeNull();

    expect(await live.staff.inbox.link.mutate({ phone: '447700900999', clientId: benedict.id })).toEqual({ linked: 1 });
    expect(await clientOf('I need advice on my divorce')).toBe(benedict.id);
    const after = await live.staff.clients.get.query({ clientId: benedict.id });
    expect(after.numbers).toEqual([
      match.objectContaining({ digits: '447700900456', primary: true }),
      match.objectContaining({
        digits: '447700900999',
        primary: false,
        linked: true,
        addedBy: { id: match.any(Number), name: 'Sam Staff' },
      }),
    ]);
    const [linkEvent] = await audit('inbox.link');
    expect(linkEvent).toMatchObject({
      subject: `client:${benedict.id}`,
      detail: { digits: '447700900999', moved: 1, ids: [match.any(Number)] },
      user_id: match.any(Number),
    });
    expect(linkEvent?.ip).toBeTruthy();

    // The next message from that number files itself.
    await inbound('447700900999', 'here are the details');
    expect(await clientOf('here are the details')).toBe(benedict.id);

    // A reply without a chosen number goes to the number that last wrote; to Benedict's own only when chosen.
    const reply = await live.staff.chat.send.mutate({ clientId: benedict.id, body: 'We can help; call us.', caseId: openCase.id });
    expect(reply.peerPhone).toBe('447700900999');
    expect(sentTo()).toEqual(['447700900999']);
    await live.staff.chat.send.mutate({ clientId: benedict.id, to: '+44 7700 900456', body: 'For Benedict himself' });
    expect(sentTo()).toEqual(['447700900999', '447700900456']);

    // Never to a number the conversation is not with.
    await expect(live.staff.chat.send.mutate({ clientId: benedict.id, to: '+44 7700 900777', body: 'nope' })).rejects.toMatchObject({
      data: { code: 'BAD_REQUEST', fieldErrors: { to: ["Choose one of Benedict Okafor's numbers."] } },
    });
    expect(sentTo()).toHaveLength(2);

    // Unlink: the number's messages (the reply too) go back to unlinked, off the case; the number is removed.
    expect(await live.staff.inbox.unlink.mutate({ phone: '447700900999', clientId: benedict.id })).toEqual({ unlinked: 3 });
    const strangers = await sql<{ client_id: number | null; case_id: number | null }>(
      live.server.databaseUrl,
      "SELECT client_id, case_id FROM communications WHERE peer_phone = '447700900999'",
    );
    expect(strangers).toHaveLength(3);
    expect(strangers.every((r) => r.client_id === null && r.case_id === null)).toBe(true);
    expect((await live.staff.clients.get.query({ clientId: benedict.id })).numbers.map((n) => n.digits)).toEqual(['447700900456']);
    expect((await live.staff.timeline.case.query({ caseId: openCase.id })).items).toEqual([]);
    expect(await audit('inbox.unlink')).toEqual([
      match.objectContaining({ subject: `client:${benedict.id}`, detail: match.objectContaining({ digits: '447700900999', moved: 3 }) }),
    ]);
    await inbound('447700900999', 'hello again');
    expect(await clientOf('hello again')).toBeNull();

    // Linked back to the same client, the reply returns to its case too.
    expect(await live.staff.inbox.link.mutate({ phone: '447700900999', clientId: benedict.id })).toEqual({ linked: 4 });
    expect((await live.staff.timeline.case.query({ caseId: openCase.id })).items.map((i) => i.body)).toEqual(['We can help; call us.']);
  });

  it('link needs unlinked messages: of two people linking one number at once, one wins and the number is on one client', async () => {
    const a = await live.staff.clients.create.mutate({ name: 'Race A', phone: '+44 7700 900601' });
    const b = await live.staff.clients.create.mutate({ name: 'Race B', phone: '+44 7700 900602' });
    await inbound('447700900699', 'who gets me?');
    const results = await Promise.allSettled([
      live.staff.inbox.link.mutate({ phone: '447700900699', clientId: a.id }),
      live.director.inbox.link.mutate({ phone: '447700900699', clientId: b.id }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect((results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason).toMatchObject({ data: { code: 'CONFLICT' } });
    const holders = await sql(live.server.databaseUrl, "SELECT client_id FROM client_numbers WHERE digits = '447700900699'");
    expect(holders).toHaveLength(1);
    // A number with nothing unlinked cannot be linked at all (a client's own number, say).
    await expect(live.staff.inbox.link.mutate({ phone: '447700900601', clientId: b.id })).rejects.toMatchObject({
      data: { code: 'CONFLICT' },
    });
  });

  it('linking a number another client has needs confirmation naming that client', async () => {
    await inbound('447700900701', 'before my file existed');
    const owner = await live.staff.clients.create.mutate({ name: 'Late Owner', phone: '+44 7700 900701' });
    const other = await live.staff.clients.create.mutate({ name: 'Other Person', phone: '+44 7700 900702' });
    await expect(live.staff.inbox.link.mutate({ phone: '447700900701', clientId: other.id })).rejects.toMatchObject({
      data: { code: 'CONFLICT' },
      message: match.stringContaining("already Late Owner's number"),
    });
    expect(await live.staff.inbox.link.mutate({ phone: '447700900701', clientId: owner.id })).toEqual({ linked: 1 });
  });

  it('unlink takes away only a number linked from the inbox', async () => {
    const client = await live.staff.clients.create.mutate({ name: 'Own Numbers', phone: '+44 7700 900801' });
    await live.staff.clients.addNumber.mutate({ clientId: client.id, phone: '+44 7700 900802' });
    await expect(live.staff.inbox.unlink.mutate({ phone: '447700900802', clientId: client.id })).rejects.toMatchObject({
      data: { code: 'CONFLICT' },
    });
    await expect(live.staff.inbox.unlink.mutate({ phone: '447700900801', clientId: client.id })).rejects.toMatchObject({
      data: { code: 'CONFLICT' },
    });
    expect((await live.staff.clients.get.query({ clientId: client.id })).numbers).toHaveLength(2);
  });

  it('a number removed from the client is no longer replied to, by default or by choice', async () => {
    const client = await live.staff.clients.create.mutate({ name: 'Changed Phone', phone: '+44 7700 900901' });
    await live.staff.clients.addNumber.mutate({ clientId: client.id, phone: '+353 87 765 4321' });
    await inbound('353877654321', 'from my Irish phone');
    expect((await live.staff.chat.send.mutate({ clientId: client.id, body: 'to the Irish phone' })).peerPhone).toBe('353877654321');
    await live.staff.clients.removeNumber.mutate({ clientId: client.id, phone: '+353 87 765 4321' });
    expect((await live.staff.chat.send.mutate({ clientId: client.id, body: 'to the main phone' })).peerPhone).toBe('447700900901');
    await expect(live.staff.chat.send.mutate({ clientId: client.id, to: '353877654321', body: 'nope' })).rejects.toMatchObject({
      data: { code: 'BAD_REQUEST' },
    });
  });

  it('finds a client by a number typed the national way', async () => {
    const client = await live.staff.clients.create.mutate({ name: 'National Search', phone: '+44 7700 900951' });
    expect((await live.staff.clients.list.query({ search: '07700 900951' })).map((c) => c.id)).toEqual([client.id]);
    expect((await live.staff.clients.list.query({ search: '0044 7700 900951' })).map((c) => c.id)).toEqual([client.id]);
  });

  it('a client keeps at least one number; removing the primary makes the next one primary', async () => {
    const client = await live.staff.clients.create.mutate({ name: 'Two Numbers', phone: '+44 7700 900501' });
    await expect(live.staff.clients.removeNumber.mutate({ clientId: client.id, phone: '+44 7700 900501' })).rejects.toMatchObject({
      data: { code: 'CONFLICT' },
    });
    await live.staff.clients.addNumber.mutate({ clientId: client.id, phone: '+44 7700 900502' });
    const after = await live.staff.clients.removeNumber.mutate({ clientId: client.id, phone: '+44 7700 900501' });
    expect(after.numbers).toEqual([match.objectContaining({ digits: '447700900502', primary: true })]);
    expect(after.phone).toBe('+447700900502');
  });
});

describe('the audit trail', () => {
  it('refuses UPDATE, DELETE and TRUNCATE: it is append-only', async () => {
    await sql(live.server.databaseUrl, "INSERT INTO audit_events (action, subject) VALUES ('inbox.link', 'client:0')");
    await expect(sql(live.server.databaseUrl, "UPDATE audit_events SET action = 'x'")).rejects.toThrow(/append-only/);
    await expect(sql(live.server.databaseUrl, 'DELETE FROM audit_events')).rejects.toThrow(/append-only/);
    await expect(sql(live.server.databaseUrl, 'TRUNCATE audit_events')).rejects.toThrow(/append-only/);
  });
});

// A number as the provider writes it (E.164 digits without "+") is a number the firm can answer,
// even where libphonenumber does not place it: WhatsApp still writes Mexican mobiles as 52 1 + ten
// digits, which the number plan dropped.
describe('a reply to an unlinked number as the provider wrote it', () => {
  it('goes to a Mexican mobile that wrote as 52 1 + ten digits, filed with its messages', async () => {
    const from = '5215512345678';
    await postWebhook(live.server.url, cloudPayload({ messages: [textMessage('wamid.mx-legacy-1', from, 'Hola, ¿me pueden llamar?')] }));
    const sent = await live.staff.chat.send.mutate({ to: from, body: 'Le llamamos a las 3.' });
    expect(sent).toMatchObject({ status: 'sent' });
    expect(sentTo()).toEqual([from]);
    const rows = await sql<{ direction: string; peer_phone: string | null }>(
      live.server.databaseUrl,
      'SELECT direction, peer_phone FROM communications WHERE body IN ($1, $2) ORDER BY id',
      ['Hola, ¿me pueden llamar?', 'Le llamamos a las 3.'],
    );
    expect(rows).toEqual([
      { direction: 'inbound', peer_phone: from },
      { direction: 'outbound', peer_phone: from },
    ]);
  });
});
