import { readFileSync } from 'node:fs';
import superjson from 'superjson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { denialsSettled } from '../../server/access/record-denial';
import { createSession, SESSION_COOKIE } from '../../server/auth/sessions';
import { createUser } from '../../server/auth/users';
import { isConnected, openLiveStream } from '../support/live-stream';
import { createHttpClient, startTestServer, type TTestServer } from '../support/test-server';
import { match } from '../support/matchers';
import { cloudPayload, postWebhook, sql, textMessage, WEBHOOK_SECRET } from '../support/webhook';

// The walls hold on every path (server/access/README.md "Ethical walls"). Every procedure of the app router and
// every Express route is listed below, with how to aim it at walled records, or why it returns
// none: a procedure or route added later without an entry fails here, so the rule cannot be
// forgotten. Each is called by a person screened from a client and by a non-member of a restricted
// client and case, and nothing it answers (data or error) may name a walled client or case, quote
// a walled message or number, or count a walled record.

const SESSION_SECRET = 'walls-session-secret-0123456789abcdef';

// What must never reach a walled person: names, a case's reference and title, words, numbers.
const ZEPHYR = { name: 'Quentin Zephyrwall', phone: '+447700911111', word: 'quokkasecret' }; // Sam and Dana are screened from it
const VANTA = { name: 'Rosalind Vantablack', phone: '+447700922222', word: 'narwhalsecret' }; // restricted: only Mia
const OPEN = { name: 'Victor Openshaw', phone: '+447700933333' }; // everyone, but its case HUSH is restricted: only Mia
const SHARED = { name: 'Valerie Opensea', phone: '+353700911111' }; // shares Zephyrwall's last 9 digits
const STRANGER = '33700911111'; // an unknown number both of those could be
const HUSH = { reference: 'HUSH-2026-001', title: 'Hushhush settlement', word: 'wombatsecret' };
const ZEPH_CASE = { reference: 'ZEPH-2026-001', title: 'Zephyr estate' };
const SECRETS_FROM_ZEPHYR = ['Zephyrwall', ZEPHYR.word, 'ZEPH-2026', 'Zephyr estate', '447700911111', '7700 911111'];
const SECRETS_FROM_VANTA = ['Vantablack', VANTA.word, '447700922222', '7700 922222'];
const SECRETS_FROM_HUSH = ['HUSH-2026', 'Hushhush', HUSH.word];

type TClient = ReturnType<typeof createHttpClient>['client'];
type TIds = {
  zephyr: number;
  vanta: number;
  open: number;
  shared: number;
  hush: number;
  zephCase: number;
  zephRecord: number;
  hushRecord: number;
  openRecord: number;
  zephFile: number;
  sam: number;
  mia: number;
  vantaHold: number;
  zephRequest: number;
  batch: string;
  vantaScheduled: number;
  hushScheduled: number;
};
/** One way to call a procedure: its input, aimed at what the caller is walled from. */
type TCall = (ids: TIds) => unknown;

let server: TTestServer;
let ids: TIds;
const people: Record<'dee' | 'sam' | 'olive' | 'dana' | 'mia', { client: TClient; cookie: string; id: number }> = {} as never;

const echo = (() => {
  let n = 0;
  return () => `walls-echo-${++n}`;
})();

/**
 * Every procedure, and how to aim it at walled records. `null`: the procedure returns no client's
 * or case's records, with the reason in the comment beside it. A call that would change something
 * is aimed at what every walled caller here is walled from (Vantablack, the HUSH case), so that
 * nothing they may legitimately do changes what the next caller finds.
 */
const CALLS: Record<string, TCall[] | null> = {
  'access.get': [(i) => ({ clientId: i.zephyr }), (i) => ({ clientId: i.vanta }), (i) => ({ caseId: i.hush })],
  'access.setRestricted': [(i) => ({ clientId: i.zephyr, restricted: false }), (i) => ({ caseId: i.hush, restricted: false })],
  'access.addMember': [(i) => ({ clientId: i.vanta, userId: i.sam }), (i) => ({ caseId: i.hush, userId: i.sam })],
  'access.removeMember': [(i) => ({ clientId: i.vanta, userId: i.mia })],
  'access.screen': [(i) => ({ clientId: i.vanta, userId: i.mia, reason: 'probe' })],
  'access.unscreen': [(i) => ({ clientId: i.zephyr, userId: i.sam })],
  'access.forPerson': [(i) => ({ userId: i.sam }), (i) => ({ userId: i.mia })],
  'auth.signIn': null, // signs in: no records
  'auth.signOut': null, // signs out: no records (and would end the caller's session)
  'auth.me': null, // the caller themself
  'auth.sessions': null, // the caller's own sessions: no records
  'auth.revokeSession': null, // signs out one of the caller's sessions: no records
  'auth.completeSignIn': null, // signs in: no records
  'auth.inviteInfo': null, // an invitation's name and email: no records
  'auth.acceptInvite': null, // makes the invited person's account: no records
  'auth.changePassword': null, // the caller's own password: no records
  'auth.stepUp': null, // the caller's own second factor: no records
  'auth.mfa.status': null, // the caller's own second factors
  'auth.mfa.startTotp': null, // the caller's own second factors
  'auth.mfa.confirmTotp': null, // the caller's own second factors
  'auth.mfa.remove': null, // the caller's own second factors
  'auth.mfa.regenerateRecoveryCodes': null, // the caller's own second factors
  'auth.passkeys.registrationOptions': null, // the caller's own passkeys
  'auth.passkeys.register': null, // the caller's own passkeys
  'auth.passkeys.list': null, // the caller's own passkeys
  'auth.passkeys.remove': null, // the caller's own passkeys
  'auth.passkeys.signInOptions': null, // signs in: no records
  'auth.passkeys.signIn': null, // signs in: no records
  'audit.list': [
    () => ({}),
    () => ({ action: 'access.screen' }),
    () => ({ action: 'inbox.link' }),
    (i) => ({ subject: `client:${i.zephyr}` }),
    (i) => ({ subject: `case:${i.hush}` }),
  ],
  'audit.head': null, // the trail's last id and hash: no record
  'audit.verify': null, // counts and hashes of the whole trail: no record
  'holds.place': [(i) => ({ clientId: i.vanta, reason: 'probe' }), (i) => ({ caseId: i.hush, reason: 'probe' })],
  'holds.release': [(i) => ({ holdId: i.vantaHold })],
  'holds.list': [() => ({}), (i) => ({ clientId: i.vanta }), (i) => ({ caseId: i.hush })],
  'retention.preview': [() => undefined],
  'retention.batch': [(i) => ({ batchId: i.batch })],
  'retention.batches': [() => undefined],
  'retention.destroy': [(i) => ({ batchId: i.batch })],
  'erasure.request': [(i) => ({ clientId: i.vanta, receivedAt: new Date(), note: 'probe' })],
  'erasure.decide': [(i) => ({ requestId: i.zephRequest, decision: 'refuse', grounds: 'legal_claims' })],
  'erasure.list': [() => ({}), (i) => ({ clientId: i.zephyr })],
  'cases.setStatus': [(i) => ({ caseId: i.hush, status: 'closed' }), (i) => ({ caseId: i.zephCase, status: 'open' })],
  'clients.list': [() => ({}), () => ({ search: 'Zephyr' }), () => ({ search: '911111' }), () => ({ search: 'Vanta' })],
  'clients.get': [(i) => ({ clientId: i.zephyr }), (i) => ({ clientId: i.vanta })],
  // A number a walled client has: the refusal must not name them.
  'clients.create': [() => ({ name: 'Probe Person', phone: ZEPHYR.phone }), () => ({ name: 'Probe Person', phone: VANTA.phone })],
  'clients.addNumber': [
    (i) => ({ clientId: i.vanta, phone: '+447700955555' }),
    (i) => ({ clientId: i.open, phone: ZEPHYR.phone }),
    (i) => ({ clientId: i.open, phone: VANTA.phone }),
  ],
  'clients.clearOptOut': [(i) => ({ clientId: i.zephyr }), (i) => ({ clientId: i.vanta })],
  'clients.removeNumber': [(i) => ({ clientId: i.vanta, phone: VANTA.phone })],
  'cases.create': [(i) => ({ clientId: i.vanta, reference: 'PROBE-1', title: 'Probe' })],
  'cases.get': [(i) => ({ caseId: i.hush }), (i) => ({ caseId: i.zephCase })],
  'cases.listForClient': [(i) => ({ clientId: i.open }), (i) => ({ clientId: i.zephyr })],
  'timeline.client': [(i) => ({ clientId: i.open }), (i) => ({ clientId: i.zephyr }), (i) => ({ clientId: i.vanta })],
  'timeline.case': [(i) => ({ caseId: i.hush }), (i) => ({ caseId: i.zephCase })],
  'timeline.refile': [
    (i) => ({ clientId: i.open, ids: [i.hushRecord], caseId: null }),
    (i) => ({ clientId: i.open, ids: [i.openRecord], caseId: i.hush }),
    (i) => ({ clientId: i.zephyr, ids: [i.zephRecord], caseId: null }),
  ],
  'timeline.documents': [(i) => ({ clientId: i.zephyr }), (i) => ({ caseId: i.hush }), (i) => ({ clientId: i.open })],
  'users.list': null, // the firm's people, no client's or case's records
  'users.add': null, // people
  'users.changeRole': null, // people
  'users.deactivate': null, // people
  'users.reactivate': null, // people
  'users.sessions': null, // a person's sessions: no records
  'users.endSessions': null, // signs a person out: no records
  'users.invite': null, // people
  'users.invitations': null, // people
  'users.revokeInvite': null, // people
  'chat.send': [
    (i) => ({ clientId: i.vanta, body: 'probe', echoId: echo() }),
    () => ({ to: VANTA.phone, body: 'probe', echoId: echo() }),
    (i) => ({ clientId: i.open, caseId: i.hush, body: 'probe', echoId: echo() }),
  ],
  'chat.retry': [(i) => ({ id: i.zephRecord }), (i) => ({ id: i.hushRecord })],
  'chat.sendTemplate': [
    (i) => ({ clientId: i.vanta, name: 'appointment_reminder', language: 'en_GB', params: ['a', 'b'], echoId: echo() }),
  ],
  'chat.react': [(i) => ({ communicationId: i.zephRecord, emoji: '👍' }), (i) => ({ communicationId: i.hushRecord, emoji: '👍' })],
  'chat.sendButtons': [
    (i) => ({ clientId: i.vanta, body: 'probe', buttons: [{ id: 'a', title: 'A' }], echoId: echo() }),
    () => ({ to: VANTA.phone, body: 'probe', buttons: [{ id: 'a', title: 'A' }], echoId: echo() }),
    (i) => ({ clientId: i.open, caseId: i.hush, body: 'probe', buttons: [{ id: 'a', title: 'A' }], echoId: echo() }),
  ],
  'chat.schedule': [
    (i) => ({ clientId: i.vanta, body: 'probe', sendAt: new Date(Date.now() + 3_600_000) }),
    (i) => ({ clientId: i.open, caseId: i.hush, body: 'probe', sendAt: new Date(Date.now() + 3_600_000) }),
  ],
  'chat.scheduled': [
    () => ({}),
    () => ({ everyone: true }),
    (i) => ({ clientId: i.zephyr }),
    (i) => ({ clientId: i.vanta }),
    (i) => ({ clientId: i.open }),
  ],
  'chat.reschedule': [
    (i) => ({ id: i.vantaScheduled, sendAt: new Date(Date.now() + 7_200_000) }),
    (i) => ({ id: i.hushScheduled, sendAt: new Date(Date.now() + 7_200_000) }),
  ],
  'chat.editScheduled': [(i) => ({ id: i.vantaScheduled, body: 'probe' }), (i) => ({ id: i.hushScheduled, body: 'probe' })],
  'chat.cancelScheduled': [(i) => ({ id: i.vantaScheduled }), (i) => ({ id: i.hushScheduled })],
  'chat.providerTemplates': null, // the provider's template catalogue
  'chat.refreshTemplates': null, // the provider's template catalogue
  'chat.templates': null, // the firm's wording
  'wording.list': null, // the firm's wording
  'wording.add': null, // the firm's wording
  'wording.update': null, // the firm's wording
  'wording.remove': null, // the firm's wording
  'numbers.list': null, // the firm's business numbers
  'numbers.add': null, // the firm's business numbers
  'numbers.update': null, // the firm's business numbers
  'numbers.deactivate': null, // the firm's business numbers
  'imports.list': [(i) => ({ clientId: i.zephyr }), (i) => ({ clientId: i.vanta })],
  // A walled client is NOT_FOUND before the import is read, so a made-up import id asks the walls alone.
  'imports.commit': [
    (i) => ({ importId: '00000000-0000-4000-8000-000000000000', clientId: i.zephyr, firmParticipants: [] }),
    (i) => ({ importId: '00000000-0000-4000-8000-000000000000', clientId: i.open, caseId: i.hush, firmParticipants: [] }),
  ],
  'imports.discard': null, // a person's own preview, named by nothing of a client's
  'imports.progress': null, // counts of a person's own import
  'inbox.threads': [() => ({}), () => ({ filter: 'unread' }), () => ({ filter: 'unlinked' }), () => ({ filter: 'awaiting_reply' })],
  'inbox.threadSummary': [(i) => ({ clientId: i.zephyr }), (i) => ({ clientId: i.open }), () => ({ phone: `+${STRANGER}` })],
  'inbox.unreadCount': [() => undefined],
  'inbox.search': [() => ({ q: ZEPHYR.word }), () => ({ q: VANTA.word }), () => ({ q: HUSH.word })],
  'inbox.thread': [(i) => ({ clientId: i.zephyr }), (i) => ({ clientId: i.vanta }), (i) => ({ clientId: i.open })],
  'inbox.markRead': [(i) => ({ clientId: i.vanta }), (i) => ({ clientId: i.open })],
  'inbox.link': [(i) => ({ phone: `+${STRANGER}`, clientId: i.vanta })],
  'inbox.unlink': [(i) => ({ phone: VANTA.phone, clientId: i.vanta })],
  'inbox.onChange': null, // over HTTP it is the live stream: checked below with real frames
  'inbox.assign': [(i) => ({ clientId: i.vanta, userId: i.sam }), (i) => ({ clientId: i.zephyr, userId: i.sam })],
  'inbox.setState': [(i) => ({ clientId: i.vanta, state: 'done' }), (i) => ({ clientId: i.zephyr, state: 'done' })],
  'inbox.people': [(i) => ({ clientId: i.vanta }), (i) => ({ clientId: i.zephyr })],
  'inbox.workload': [() => undefined],
  'inbox.replyTarget': null, // a setting
  'notifications.list': [() => ({})],
  'notifications.unreadCount': [() => undefined],
  'notifications.markRead': [() => ({ all: true })],
  'chat.addNote': [
    (i) => ({ clientId: i.vanta, body: 'probe' }),
    (i) => ({ clientId: i.zephyr, body: 'probe' }),
    (i) => ({ clientId: i.open, caseId: i.hush, body: 'probe' }),
  ],
  'clients.setResponsible': [(i) => ({ clientId: i.vanta, userId: i.sam }), (i) => ({ clientId: i.zephyr, userId: i.sam })],
  'settings.chat': null, // the firm's chat settings
  'settings.webhookStatus': null, // deliveries' counts, no records
  'settings.sendTest': [() => ({ to: VANTA.phone, body: 'probe' })],
  'settings.checkConnection': null, // the provider's account
  'settings.businessHours': null, // the firm's opening hours
  'settings.setBusinessHours': null, // the firm's opening hours
  'settings.security': null, // the firm's sign-in policy
  'settings.setSecurity': null, // the firm's sign-in policy
  'settings.readReceipts': null, // the firm's read-receipt policy
  'settings.setReadReceipts': null, // the firm's read-receipt policy
};

/** Calls `path` over HTTP as `client`: what came back, data or error, as text. */
async function callAs(client: TClient, path: string, input: unknown): Promise<{ text: string; code: string | null }> {
  const [namespace, name] = path.split('.') as [string, string];
  const type = (server.router._def.procedures as unknown as Record<string, { _def: { type: string } }>)[path]!._def.type;
  const procedure = (client as unknown as Record<string, Record<string, Record<string, (input: unknown) => Promise<unknown>>>>)[namespace]![
    name
  ]!;
  try {
    const data = await (type === 'query' ? procedure.query!(input) : procedure.mutate!(input));
    return { text: JSON.stringify(superjson.serialize(data).json), code: null };
  } catch (error) {
    const e = error as { message: string; data?: { code?: string; fieldErrors?: unknown } };
    return { text: `${e.message} ${JSON.stringify(e.data?.fieldErrors ?? {})}`, code: e.data?.code ?? 'UNKNOWN' };
  }
}

async function deliver(from: string, id: string, body: string) {
  const answer = await postWebhook(server.url, cloudPayload({ messages: [textMessage(id, from, body)] }));
  expect(answer.status).toBe(200);
}

async function signIn(email: string, name: string, role: 'staff' | 'director') {
  const user = await createUser({ email, name, role, password: 'walls-password-1' });
  const { client } = createHttpClient(server.url);
  await client.auth.signIn.mutate({ email, password: 'walls-password-1' });
  const cookie = `${SESSION_COOKIE}=${(await createSession(user.id, SESSION_SECRET, new Date())).token}`;
  return { client, cookie, id: user.id };
}

const idOfRecord = async (msgId: string) =>
  (await sql<{ id: number }>(server.databaseUrl, `SELECT id FROM communications WHERE metadata->>'chat_msg_id' = $1`, [msgId]))[0]!.id;

beforeAll(async () => {
  server = await startTestServer({ SESSION_SECRET, MESSAGING_WEBHOOK_SECRET: WEBHOOK_SECRET });
  people.dee = await signIn('dee@walls.test', 'Dee Director', 'director'); // on no wall: sets them up
  people.sam = await signIn('sam@walls.test', 'Sam Screened', 'staff');
  people.olive = await signIn('olive@walls.test', 'Olive Outsider', 'staff');
  people.dana = await signIn('dana@walls.test', 'Dana Director', 'director'); // screened too: a director is no exception
  people.mia = await signIn('mia@walls.test', 'Mia Member', 'staff');
  const dee = people.dee.client;
  const zephyr = await dee.clients.create.mutate({ name: ZEPHYR.name, phone: ZEPHYR.phone });
  const vanta = await dee.clients.create.mutate({ name: VANTA.name, phone: VANTA.phone });
  const open = await dee.clients.create.mutate({ name: OPEN.name, phone: OPEN.phone });
  const shared = await dee.clients.create.mutate({ name: SHARED.name, phone: SHARED.phone });
  const hush = await dee.cases.create.mutate({ clientId: open.id, ...HUSH });
  const zephCase = await dee.cases.create.mutate({ clientId: zephyr.id, ...ZEPH_CASE });

  await deliver(ZEPHYR.phone.slice(1), 'wamid.zeph1', `${ZEPHYR.word} alpha from the estate`);
  await postWebhook(
    server.url,
    cloudPayload({
      messages: [
        {
          from: ZEPHYR.phone.slice(1),
          id: 'wamid.zephfile',
          timestamp: '1763700001',
          type: 'image',
          image: { id: '77', mime_type: 'image/png' },
        },
      ],
    }),
  );
  await deliver(VANTA.phone.slice(1), 'wamid.vanta1', `${VANTA.word} beta`);
  await deliver(OPEN.phone.slice(1), 'wamid.open1', 'open hello');
  await deliver(OPEN.phone.slice(1), 'wamid.hush1', `${HUSH.word} gamma, about the settlement`);
  await deliver(STRANGER, 'wamid.stranger1', 'stranger hello');
  const hushRecord = await idOfRecord('wamid.hush1');
  await dee.timeline.refile.mutate({ clientId: open.id, ids: [hushRecord], caseId: hush.id });
  const zephFile = (await sql<{ id: number }>(server.databaseUrl, 'SELECT a.id FROM attachments a'))[0]!.id;

  // Before the walls: notes on each matter mention the people later walled from it, and the
  // conversations are given to them, so that each has notifications and conversations to be kept from.
  const mentionAll = '@Sam Screened @Dana Director @Olive Outsider';
  await dee.chat.addNote.mutate({ clientId: zephyr.id, body: `${ZEPHYR.word} note for ${mentionAll}` });
  await dee.chat.addNote.mutate({ clientId: vanta.id, body: `${VANTA.word} note for ${mentionAll}` });
  await dee.chat.addNote.mutate({ clientId: open.id, caseId: hush.id, body: `${HUSH.word} note for ${mentionAll}` });
  await dee.inbox.assign.mutate({ clientId: zephyr.id, userId: people.sam.id });
  await dee.inbox.assign.mutate({ clientId: vanta.id, userId: people.olive.id });

  // Records about the walled matters, made before the walls: a hold whose reason names Vantablack,
  // Zephyrwall's erasure request, and Zephyrwall's case closed long enough ago to be due for destruction.
  const vantaHold = await dee.holds.place.mutate({ clientId: vanta.id, reason: `dispute with ${VANTA.name} over ${VANTA.word}` });
  const zephRequest = await dee.erasure.request.mutate({
    clientId: zephyr.id,
    receivedAt: new Date(),
    note: `${ZEPHYR.word} asked by email`,
  });
  await sql(server.databaseUrl, "UPDATE cases SET status = 'closed', closed_at = now() - interval '7 years' WHERE id = $1", [zephCase.id]);

  // Sends scheduled on each walled matter, a day ahead, saying its secret word.
  const tomorrow = new Date(Date.now() + 86_400_000);
  const vantaScheduled = await dee.chat.schedule.mutate({ clientId: vanta.id, body: `${VANTA.word} reminder`, sendAt: tomorrow });
  const hushScheduled = await dee.chat.schedule.mutate({
    clientId: open.id,
    caseId: hush.id,
    body: `${HUSH.word} reminder`,
    sendAt: tomorrow,
  });
  await dee.chat.schedule.mutate({ clientId: zephyr.id, body: `${ZEPHYR.word} reminder`, sendAt: tomorrow });

  // The walls.
  const reason = `acted for the other side against ${ZEPHYR.name}`;
  await dee.access.screen.mutate({ clientId: zephyr.id, userId: people.sam.id, reason });
  await dee.access.screen.mutate({ clientId: zephyr.id, userId: people.dana.id, reason });
  await dee.access.addMember.mutate({ clientId: vanta.id, userId: people.mia.id });
  await dee.access.setRestricted.mutate({ clientId: vanta.id, restricted: true });
  await dee.access.addMember.mutate({ caseId: hush.id, userId: people.mia.id });
  await dee.access.setRestricted.mutate({ caseId: hush.id, restricted: true });
  ids = {
    zephyr: zephyr.id,
    vanta: vanta.id,
    open: open.id,
    shared: shared.id,
    hush: hush.id,
    zephCase: zephCase.id,
    zephRecord: await idOfRecord('wamid.zeph1'),
    hushRecord,
    openRecord: await idOfRecord('wamid.open1'),
    zephFile,
    sam: people.sam.id,
    mia: people.mia.id,
    vantaHold: vantaHold.id,
    zephRequest: zephRequest.id,
    // Dee's preview holds Zephyrwall's case, which two of the callers are walled from.
    batch: (await dee.retention.preview.query()).batchId,
    vantaScheduled: vantaScheduled.id,
    hushScheduled: hushScheduled.id,
  };
}, 120_000);
afterAll(() => server?.stop());

describe('every procedure of the app router', () => {
  it('is listed here, with how to aim it at walled records or why it returns none', () => {
    const procedures = Object.keys(server.router._def.procedures).sort();
    expect(procedures.filter((path) => !(path in CALLS))).toEqual([]);
    expect(Object.keys(CALLS).filter((path) => !procedures.includes(path))).toEqual([]);
  });

  const walledPeople = [
    ['a person screened from a client (staff)', 'sam', [...SECRETS_FROM_ZEPHYR, ...SECRETS_FROM_VANTA, ...SECRETS_FROM_HUSH]],
    ['a director screened from it', 'dana', [...SECRETS_FROM_ZEPHYR, ...SECRETS_FROM_VANTA, ...SECRETS_FROM_HUSH]],
    ['a non-member of a restricted client and case', 'olive', [...SECRETS_FROM_VANTA, ...SECRETS_FROM_HUSH]],
  ] as const;

  // Every procedure, one call after another: ~8 s alone, several times that on a loaded machine (the limit is for a hang).
  it.each(walledPeople)(
    'answers %s without a walled name, number, word or count',
    async (_who, person, secrets) => {
      const leaks: string[] = [];
      for (const [path, calls] of Object.entries(CALLS)) {
        for (const call of calls ?? []) {
          const input = call(ids);
          const { text } = await callAs(people[person].client, path, input);
          // A number the caller typed may come back in its refusal: that tells them nothing.
          const typed = JSON.stringify(input ?? {}).replace(/\D/g, '');
          for (const secret of secrets) {
            if (text.includes(secret) && !typed.includes(secret.replace(/\D/g, '') || '-'))
              leaks.push(`${path}(${JSON.stringify(input)}) → …${secret}…`);
          }
        }
      }
      expect(leaks).toEqual([]);
      // Counts: the unread badge counts only what they may open.
      const visibleUnread =
        person === 'olive' ? ['wamid.zeph1', 'wamid.zephfile', 'wamid.open1', 'wamid.stranger1'] : ['wamid.open1', 'wamid.stranger1'];
      const [row] = await sql<{ messages: number; conversations: number }>(
        server.databaseUrl,
        `SELECT count(*)::int AS messages, count(DISTINCT coalesce(client_id::text, peer_phone))::int AS conversations FROM communications
       WHERE metadata->>'chat_msg_id' = ANY($1) AND read_at IS NULL`,
        [visibleUnread],
      );
      expect(await people[person].client.inbox.unreadCount.query()).toEqual(row);
    },
    120_000,
  );

  it('changed nothing scheduled on a walled matter, and scheduled nothing there', async () => {
    const rows = await sql<{ id: number; state: string; body: string; created_by: number }>(
      server.databaseUrl,
      'SELECT id, state, body, created_by FROM scheduled_sends ORDER BY id',
    );
    expect(rows.filter((r) => r.id === ids.vantaScheduled || r.id === ids.hushScheduled)).toEqual([
      { id: ids.vantaScheduled, state: 'scheduled', body: `${VANTA.word} reminder`, created_by: people.dee.id },
      { id: ids.hushScheduled, state: 'scheduled', body: `${HUSH.word} reminder`, created_by: people.dee.id },
    ]);
    const walled = [people.sam.id, people.dana.id, people.olive.id];
    expect(rows.filter((r) => walled.includes(r.created_by) && r.body === 'probe')).toEqual([]);
  });

  it('the same calls, by a member, do reach the walled records: the probe above is aimed true', async () => {
    let seen = '';
    for (const [path, calls] of Object.entries(CALLS)) {
      if (!path.startsWith('inbox.') && !path.startsWith('timeline.') && !path.startsWith('clients.') && !path.startsWith('cases.'))
        continue;
      if (!(server.router._def.procedures as unknown as Record<string, { _def: { type: string } }>)[path]!._def.type.startsWith('query'))
        continue;
      for (const call of calls ?? []) seen += (await callAs(people.mia.client, path, call(ids))).text;
    }
    for (const secret of [...SECRETS_FROM_ZEPHYR, ...SECRETS_FROM_VANTA, ...SECRETS_FROM_HUSH].filter((s) => !s.includes(' 9')))
      expect(seen).toContain(secret);
  });

  it('a walled record is NOT_FOUND exactly as a missing one, and the attempt is on the audit trail', async () => {
    const sam = people.sam.client;
    const walled = await callAs(sam, 'clients.get', { clientId: ids.zephyr });
    const missing = await callAs(sam, 'clients.get', { clientId: 999_999 });
    expect(walled).toEqual(missing);
    expect(walled.code).toBe('NOT_FOUND');
    expect(await callAs(sam, 'cases.get', { caseId: ids.hush })).toEqual(await callAs(sam, 'cases.get', { caseId: 999_999 }));
    expect(await callAs(sam, 'inbox.thread', { clientId: ids.zephyr })).toEqual(await callAs(sam, 'inbox.thread', { clientId: 999_999 }));
    await denialsSettled(); // written off the request's path (server/access/README.md "What the trail records")
    const denied = await sql<{ subject: string; path: string }>(
      server.databaseUrl,
      `SELECT subject, detail->>'path' AS path FROM audit_events WHERE action = 'access.denied' AND user_id = $1`,
      [people.sam.id],
    );
    expect(denied).toEqual(
      match.arrayContaining([
        { subject: `client:${ids.zephyr}`, path: 'clients.get' },
        { subject: `case:${ids.hush}`, path: 'cases.get' },
      ]),
    );
  });

  it('nothing a walled person tried changed the walls or the records', async () => {
    // Read as stored: Dee set the walls up but is a member of neither restricted matter, so she cannot read them either.
    const walls = await sql(
      server.databaseUrl,
      `SELECT 'screen' AS kind, subject_type AS type, subject_id AS id, user_id AS "user" FROM access_screens
       UNION ALL SELECT 'member', subject_type, subject_id, user_id FROM access_members
       UNION ALL SELECT 'restricted', 'client', id, NULL FROM clients WHERE restricted
       UNION ALL SELECT 'restricted', 'case', id, NULL FROM cases WHERE restricted ORDER BY 1, 2, 3, 4`,
    );
    expect(walls).toEqual([
      { kind: 'member', type: 'case', id: ids.hush, user: people.mia.id },
      { kind: 'member', type: 'client', id: ids.vanta, user: people.mia.id },
      { kind: 'restricted', type: 'case', id: ids.hush, user: null },
      { kind: 'restricted', type: 'client', id: ids.vanta, user: null },
      { kind: 'screen', type: 'client', id: ids.zephyr, user: people.sam.id },
      { kind: 'screen', type: 'client', id: ids.zephyr, user: people.dana.id },
    ]);
    expect(await sql(server.databaseUrl, 'SELECT digits FROM client_numbers WHERE client_id = $1', [ids.vanta])).toEqual([
      { digits: VANTA.phone.slice(1) },
    ]);
    const state = await sql<{ msg: string; read: boolean; clientId: number | null; caseId: number | null }>(
      server.databaseUrl,
      `SELECT metadata->>'chat_msg_id' AS msg, read_at IS NOT NULL AS read, client_id AS "clientId", case_id AS "caseId" FROM communications
       WHERE metadata->>'chat_msg_id' IN ('wamid.vanta1', 'wamid.hush1', 'wamid.open1', 'wamid.stranger1') ORDER BY 1`,
    );
    expect(state).toEqual([
      { msg: 'wamid.hush1', read: false, clientId: ids.open, caseId: ids.hush },
      { msg: 'wamid.open1', read: true, clientId: ids.open, caseId: null }, // marked read by those who may see it
      { msg: 'wamid.stranger1', read: false, clientId: null, caseId: null },
      { msg: 'wamid.vanta1', read: false, clientId: ids.vanta, caseId: null },
    ]);
    const sent = await sql(
      server.databaseUrl,
      `SELECT id FROM communications WHERE direction = 'outbound' AND (client_id = $1 OR case_id = $2 OR sent_by = ANY($3))`,
      [ids.vanta, ids.hush, [people.sam.id, people.dana.id]],
    );
    expect(sent).toEqual([]);
  });
});

describe('every Express route', () => {
  // The routes the app mounts, as create-app.ts writes them; each either checked below or returning no walled records.
  const ROUTES: Record<string, string | null> = {
    "get '/api/health'": null, // the server's state
    'get OIDC_START_PATH': null, // single sign-on: to the firm's provider, no records
    'get OIDC_CALLBACK_PATH': null, // single sign-on: signs in, no records
    'get SIGNING_KEY_PATH': null, // the firm's public key
    "get '/api/media/:attachmentId'": 'checked',
    "post '/api/media'": null, // the uploader's own new file
    'post IMPORT_UPLOAD_PATH': null, // a chat export read for its uploader: it names no client until committed (imports.commit)
    "get '/api/export/:scope/:file'": 'checked',
    'post EXPORT_VERIFY_PATH': 'checked', // an export of a walled matter is answered as unknown (export-verify.test.ts)
    "get '/api/retention/:file'": null, // a destruction certificate: ids and hashes, no names (directors)
    "use '/api/webhooks/chat'": null, // the provider's deliveries in, no records out
    'use RESUMABLE_UPLOADS_PATH': null, // the uploader's own files in progress
    "use '/trpc'": 'checked', // the procedures above, and the live stream below
    "use '/api'": null, // not found
  };

  it('is listed here', () => {
    const source = readFileSync(new URL('../../server/app/create-app.ts', import.meta.url), 'utf8');
    const mounted = [...source.matchAll(/app\.(get|post|put|patch|delete|all|use)\(\s*('[^']*'|[A-Z_]+)/g)].map((m) => `${m[1]} ${m[2]}`);
    expect(mounted.filter((route) => !(route in ROUTES))).toEqual([]);
  });

  const get = async (path: string, cookie: string) => {
    const res = await fetch(`${server.url}${path}`, { headers: { cookie } });
    return { status: res.status, body: await res.text() };
  };

  it('a walled file and a walled export answer exactly as missing ones', async () => {
    const { cookie } = people.sam;
    expect(await get(`/api/media/${ids.zephFile}`, cookie)).toEqual(await get('/api/media/999999', cookie));
    expect((await get(`/api/media/${ids.zephFile}`, cookie)).status).toBe(404);
    expect((await get(`/api/media/${ids.zephFile}`, people.olive.cookie)).status).not.toBe(404); // Olive may see Zephyrwall
    for (const path of [`/api/export/client/${ids.zephyr}`, `/api/export/client/${ids.vanta}`, `/api/export/case/${ids.hush}`]) {
      const walled = await get(`${path}.json`, cookie);
      expect(walled.status).toBe(404);
      expect(walled.body).toBe((await get(`${path.replace(/\d+$/, '999999')}.json`, cookie)).body);
    }
  });

  it("a client's export leaves out its records on a case the reader is walled from", async () => {
    const olive = await get(`/api/export/client/${ids.open}.json`, people.olive.cookie);
    expect(olive.status).toBe(200);
    expect(olive.body).toContain('open hello');
    for (const secret of SECRETS_FROM_HUSH) expect(olive.body).not.toContain(secret);
    const mia = await get(`/api/export/client/${ids.open}.json`, people.mia.cookie);
    expect(mia.body).toContain(HUSH.word);
  });

  it('the live stream never carries a walled record to a walled person, and carries it to a member', async () => {
    const sam = await openLiveStream(server.url, people.sam.cookie);
    const mia = await openLiveStream(server.url, people.mia.cookie);
    try {
      await sam.waitFor(isConnected);
      await mia.waitFor(isConnected);
      await deliver(VANTA.phone.slice(1), 'wamid.vanta2', `${VANTA.word} live`);
      await deliver(ZEPHYR.phone.slice(1), 'wamid.zeph2', `${ZEPHYR.word} live`);
      await deliver(OPEN.phone.slice(1), 'wamid.open2', 'open live marker');
      // The stream keeps order: once the last one is in, the walled ones would have been too.
      await sam.waitFor((frame) => frame.data?.includes('open live marker') ?? false, 10_000);
      await mia.waitFor((frame) => frame.data?.includes('open live marker') ?? false, 10_000);
      const samText = sam.frames.map((frame) => frame.data ?? '').join('\n');
      for (const secret of [...SECRETS_FROM_ZEPHYR, ...SECRETS_FROM_VANTA]) expect(samText).not.toContain(secret);
      const miaText = mia.frames.map((frame) => frame.data ?? '').join('\n');
      expect(miaText).toContain(`${VANTA.word} live`);
      expect(miaText).toContain(`${ZEPHYR.word} live`);
    } finally {
      sam.close();
      mia.close();
    }
  });

  it('a wall change reaches an open stream at once: a resync, after which the matter is NOT_FOUND', async () => {
    const olive = await openLiveStream(server.url, people.olive.cookie);
    try {
      await olive.waitFor(isConnected);
      expect((await callAs(people.olive.client, 'inbox.thread', { clientId: ids.open })).code).toBeNull();
      const from = olive.frames.length;
      await people.dee.client.access.screen.mutate({ clientId: ids.open, userId: people.olive.id, reason: 'conflict found' });
      await olive.waitFor((frame) => frame.data?.includes('"resync":true') ?? false, 5_000, from);
      expect((await callAs(people.olive.client, 'inbox.thread', { clientId: ids.open })).code).toBe('NOT_FOUND');
    } finally {
      olive.close();
      await people.dee.client.access.unscreen.mutate({ clientId: ids.open, userId: people.olive.id });
    }
  });
});
