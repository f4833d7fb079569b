import { TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { openAt as isOpenAt, outOfHoursReply } from '../../server/business-hours/out-of-hours-sql';
import { sql as sqlTag } from '../../server/core/sql';
import { createClient } from '../../server/crm/clients';
import type { AppRouter } from '../../server/app/app-router';
import { startLiveSetup, type TLiveSetup } from '../support/live-setup';
import { createHttpClient } from '../support/test-server';
import { match } from '../support/matchers';
import { localMoment, zoneAwayFromMidnight } from '../support/zone-clock';
import { cloudPayload, postWebhook, sql, textMessage } from '../support/webhook';

// server/messaging/README.md "Business hours": the firm's week, and the reply a client who writes outside it gets, at
// most once per number per 12 hours, queued by the webhook's ingest and sent by the scheduled-sends worker.

let live: TLiveSetup;
let amelia: { id: number };
const AMELIA = '447700900123';
const REPLY = 'Thank you for your message. Our office is closed; we will reply when we open at 9:00.';

beforeAll(async () => {
  live = await startLiveSetup();
  amelia = await createClient({ name: 'Amelia Hart', phone: '+44 7700 900123' });
});
afterAll(() => live?.stop());

type TSet = Parameters<TLiveSetup['director']['settings']['setBusinessHours']['mutate']>[0];

/** Waits, if need be, until `timeZone`'s date cannot change for two minutes (a test must not straddle midnight). */
async function awayFromMidnight(...timeZones: string[]): Promise<void> {
  await vi.waitFor(
    () => {
      for (const zone of timeZones) {
        const { minutes } = localMoment(zone);
        expect(minutes > 1 && minutes < 24 * 60 - 2).toBe(true);
      }
    },
    { timeout: 200_000, interval: 1_000 },
  );
}

const ALL_DAY = (day: number) => ({ day, opens: '00:00', closes: '24:00' });
const EVERY_DAY = [1, 2, 3, 4, 5, 6, 7].map(ALL_DAY);
/** The firm's zone in the reply's tests: one far from midnight now, so no test straddles a date. */
let firmZone = 'Europe/London';
/** Open only tomorrow, 09:00–17:00: closed now, and still closed if midnight passes meanwhile. */
const closedNow = (timeZone = firmZone, autoReply: string | null = REPLY): TSet => ({
  timeZone,
  week: [{ day: (localMoment(timeZone).day % 7) + 1, opens: '09:00', closes: '17:00' }],
  closedDates: [],
  autoReply,
});
const openNow = (timeZone = firmZone): TSet => ({ timeZone, week: EVERY_DAY, closedDates: [], autoReply: REPLY });

const queuedFor = (digits: string) =>
  sql<{ id: string; to_digits: string; client_id: number | null; body: string; created_by: number | null; state: string }>(
    live.server.databaseUrl,
    "SELECT id, to_digits, client_id, body, created_by, state FROM scheduled_sends WHERE kind = 'auto_reply' AND to_digits = $1 ORDER BY id",
    [digits],
  );

const sentTo = (digits: string) =>
  live.sim.requests.filter((r) => r.method === 'POST' && r.path === '/messages' && (r.body as { to?: string }).to === digits);

const autoRepliesInThread = (digits: string) =>
  sql<{ id: number; body: string; direction: string; client_id: number | null; metadata: Record<string, unknown> }>(
    live.server.databaseUrl,
    "SELECT id, body, direction, client_id, metadata FROM communications WHERE peer_phone = $1 AND metadata->>'auto_reply' = 'true' ORDER BY id",
    [digits],
  );

/** The reply was queued for `digits`, reached the provider once, and stands in the thread as automatic. */
async function expectOneReplySent(digits: string, clientId: number | null, body = REPLY): Promise<void> {
  expect(await queuedFor(digits)).toEqual([match.objectContaining({ to_digits: digits, client_id: clientId, body, created_by: null })]);
  await vi.waitFor(
    async () => {
      expect(sentTo(digits).map((r) => (r.body as { text?: { body: string } }).text?.body)).toEqual([body]);
      expect(await autoRepliesInThread(digits)).toEqual([
        match.objectContaining({
          body,
          direction: 'outbound',
          client_id: clientId,
          metadata: match.objectContaining({ auto_reply: true }),
        }),
      ]);
    },
    { timeout: 20_000, interval: 100 },
  );
}

async function expectNoReply(digits: string): Promise<void> {
  // The reply is queued in the statement that stores the message, before the webhook answers: what
  // is not queued by now never will be, and the worker sends only what is queued.
  expect(await queuedFor(digits)).toEqual([]);
  expect(sentTo(digits)).toEqual([]);
}

async function refusal(promise: Promise<unknown>): Promise<TRPCClientError<AppRouter>> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TRPCClientError);
  return error as TRPCClientError<AppRouter>;
}

const auditRows = () =>
  sql<{ user_id: number | null; subject: string; detail: Record<string, unknown> }>(
    live.server.databaseUrl,
    "SELECT user_id, subject, detail FROM audit_events WHERE action = 'settings.business_hours' ORDER BY id",
  );

describe('the settings', () => {
  it('answers the default before any hours are set, to staff as well: Europe/London, no hours, no reply', async () => {
    expect(await live.staff.settings.businessHours.query()).toEqual({
      hoursSet: false,
      timeZone: 'Europe/London',
      week: [],
      closedDates: [],
      autoReply: null,
      openNow: null,
      updatedAt: null,
      updatedBy: null,
    });
  });

  it('refuses anyone not signed in (UNAUTHORIZED), to read or to save', async () => {
    const anonymous = createHttpClient(live.server.url).client;
    expect((await refusal(anonymous.settings.businessHours.query())).data).toMatchObject({ code: 'UNAUTHORIZED' });
    expect((await refusal(anonymous.settings.setBusinessHours.mutate(openNow()))).data).toMatchObject({ code: 'UNAUTHORIZED' });
    expect(await auditRows()).toEqual([]);
  });

  it('refuses staff (FORBIDDEN, on the server) and stores nothing', async () => {
    const error = await refusal(live.staff.settings.setBusinessHours.mutate(openNow()));
    expect(error.data).toMatchObject({ code: 'FORBIDDEN' });
    expect((await live.staff.settings.businessHours.query()).hoursSet).toBe(false);
    expect(await auditRows()).toEqual([]);
  });

  it('saves a director’s hours, sorted, in PostgreSQL’s spelling of the zone, and audits what changed without the reply’s words', async () => {
    const saved = await live.director.settings.setBusinessHours.mutate({
      timeZone: 'europe/london',
      week: [
        { day: 2, opens: '13:30', closes: '17:30' },
        { day: 2, opens: '09:00', closes: '12:30' },
        { day: 1, opens: '09:00', closes: '17:30' },
      ],
      closedDates: ['2026-12-26', '2026-12-25', '2026-12-25'],
      autoReply: `  ${REPLY}\n`,
    });
    expect(saved).toMatchObject({
      hoursSet: true,
      timeZone: 'Europe/London',
      week: [
        { day: 1, opens: '09:00', closes: '17:30' },
        { day: 2, opens: '09:00', closes: '12:30' },
        { day: 2, opens: '13:30', closes: '17:30' },
      ],
      closedDates: ['2026-12-25', '2026-12-26'],
      autoReply: REPLY,
      openNow: match.any(Boolean),
      updatedBy: { id: match.any(Number), name: 'Dee Director' },
    });
    // Staff read the same.
    expect(await live.staff.settings.businessHours.query()).toEqual(saved);
    const [first, ...more] = await auditRows();
    expect(more).toEqual([]);
    expect(first).toMatchObject({
      user_id: saved.updatedBy!.id,
      subject: 'business_hours',
      detail: {
        first: true,
        timeZone: { from: null, to: 'Europe/London' },
        week: { from: null, to: ['1 09:00-17:30', '2 09:00-12:30', '2 13:30-17:30'] },
        closedDates: { added: ['2026-12-25', '2026-12-26'], removed: [] },
        autoReply: { from: null, to: { length: REPLY.length } },
      },
    });
    expect(JSON.stringify(first!.detail)).not.toContain('closed; we will reply');

    // Saved again unchanged: nothing written, nothing audited. One change: only it is in the trail.
    await live.director.settings.setBusinessHours.mutate({ ...saved });
    expect(await auditRows()).toHaveLength(1);
    await live.director.settings.setBusinessHours.mutate({ ...saved, closedDates: ['2026-12-25', '2027-01-01'], autoReply: null });
    expect((await auditRows())[1]!.detail).toEqual({
      first: false,
      closedDates: { added: ['2027-01-01'], removed: ['2026-12-26'] },
      autoReply: { from: { length: REPLY.length }, to: null },
    });
  });

  const good = {
    timeZone: 'Europe/London',
    week: [{ day: 1, opens: '09:00', closes: '17:00' }],
    closedDates: [],
    autoReply: 'We are closed.',
  };
  it.each<[string, Record<string, unknown>, string, RegExp]>([
    ['an unknown time zone', { timeZone: 'Mars/Olympus_Mons' }, 'timeZone', /^Choose a time zone such as Europe\/London$/],
    ['a UTC offset for a time zone', { timeZone: '+01:00' }, 'timeZone', /^Choose a time zone such as Europe\/London$/],
    // Known to JavaScript only (PostgreSQL would read it as the abbreviation: UTC-8 all year), and to PostgreSQL only.
    ['a zone the browser knows and PostgreSQL does not', { timeZone: 'PST' }, 'timeZone', /^Choose a time zone such as Europe\/London$/],
    [
      'a zone PostgreSQL would read as a fixed offset all year',
      { timeZone: 'CET' },
      'timeZone',
      /^Choose a time zone such as Europe\/London$/,
    ],
    [
      'a zone PostgreSQL knows and the browser does not',
      { timeZone: 'Factory' },
      'timeZone',
      /^Choose a time zone such as Europe\/London$/,
    ],
    ['an empty time zone', { timeZone: ' ' }, 'timeZone', /^Choose a time zone such as Europe\/London$/],
    ['a reply of 4,097 characters', { autoReply: 'x'.repeat(4097) }, 'autoReply', /at most 4,096 characters/],
    ['a reply with a NUL', { autoReply: 'We are\u0000 closed' }, 'autoReply', /hidden control/],
    ['a reply with a right-to-left override', { autoReply: 'We are \u202Edesolc' }, 'autoReply', /hidden control/],
    ['a reply with a zero-width space', { autoReply: 'We are\u200B closed' }, 'autoReply', /hidden control/],
    ['a reply with a control character', { autoReply: 'We are\u0007 closed' }, 'autoReply', /hidden control/],
    [
      'opening after closing',
      { week: [{ day: 1, opens: '17:00', closes: '09:00' }] },
      'week',
      /Monday: the opening time \(17:00\) must be before/,
    ],
    ['opening when closing', { week: [{ day: 3, opens: '09:00', closes: '09:00' }] }, 'week', /Wednesday: the opening time/],
    ['a time without its leading zero', { week: [{ day: 1, opens: '9:00', closes: '17:00' }] }, 'week', /HH:MM on the 24-hour clock/],
    ['a time past the day', { week: [{ day: 1, opens: '09:00', closes: '24:30' }] }, 'week', /HH:MM on the 24-hour clock/],
    ['opening at 24:00', { week: [{ day: 1, opens: '24:00', closes: '24:00' }] }, 'week', /HH:MM on the 24-hour clock/],
    ['day 0', { week: [{ day: 0, opens: '09:00', closes: '17:00' }] }, 'week', /from 1 \(Monday\) to 7 \(Sunday\)/],
    ['day 8', { week: [{ day: 8, opens: '09:00', closes: '17:00' }] }, 'week', /from 1 \(Monday\) to 7 \(Sunday\)/],
    ['a day that is not a whole number', { week: [{ day: 1.5, opens: '09:00', closes: '17:00' }] }, 'week', /from 1 \(Monday\)/],
    ['a reply without any hours', { week: [] }, 'week', /Add the hours the firm is open/],
    ['a date not on the calendar', { closedDates: ['2026-02-30'] }, 'closedDates', /2026-02-30 is not a date on the calendar/],
    ['a date in another format', { closedDates: ['25/12/2026'] }, 'closedDates', /YYYY-MM-DD/],
  ])('refuses %s with a field error and changes nothing', async (_name, patch, field, message) => {
    const before = await live.director.settings.businessHours.query();
    const trail = (await auditRows()).length;
    const error = await refusal(live.director.settings.setBusinessHours.mutate({ ...good, ...patch }));
    expect(error.data).toMatchObject({ code: 'BAD_REQUEST' });
    const fieldErrors = error.data?.fieldErrors ?? {};
    expect(Object.keys(fieldErrors)).toEqual([field]);
    expect(fieldErrors[field]!.join(' ')).toMatch(message);
    expect(await live.director.settings.businessHours.query()).toEqual(before);
    expect(await auditRows()).toHaveLength(trail);
  });

  it('takes a reply of exactly 4,096 characters, line breaks, tabs and an emoji family; 24:00 ends a day; an empty reply is none', async () => {
    const start = 'Closed\n\tback soon 👨‍👩‍👧 ';
    const reply = start + 'x'.repeat(4096 - start.length);
    expect(reply).toHaveLength(4096);
    const week = [{ day: 5, opens: '09:00', closes: '24:00' }];
    expect(await live.director.settings.setBusinessHours.mutate({ ...good, week, autoReply: reply })).toMatchObject({
      autoReply: reply,
      week,
    });
    expect(await live.director.settings.setBusinessHours.mutate({ ...good, week, autoReply: '   ' })).toMatchObject({ autoReply: null });
  });
});

describe('the rule, in SQL, at a given moment', () => {
  const WEEKDAYS = [{ day: 1, opens: '09:00', closes: '17:00' }];
  const openAt = async (at: string, hours: { timeZone?: string; week?: unknown[]; closedDates?: string[]; autoReply?: string | null }) => {
    const [b, when] = [sqlTag`b`, sqlTag`${at}::timestamptz`];
    const statement = sqlTag`SELECT ${isOpenAt(b, when)} AS open, ${outOfHoursReply(b, when)} AS reply
       FROM (SELECT ${hours.timeZone ?? 'Europe/London'}::text AS time_zone, ${JSON.stringify(hours.week ?? WEEKDAYS)}::jsonb AS week,
                    ${hours.closedDates ?? []}::date[] AS closed_dates, ${'autoReply' in hours ? hours.autoReply : 'closed'}::text AS auto_reply) b`;
    const [row] = await sql<{ open: boolean; reply: boolean }>(live.server.databaseUrl, statement.text, statement.values);
    return row!;
  };

  it.each([
    ['Monday 16:30 in winter (GMT)', '2026-01-05T16:30:00Z', true],
    ['Monday 09:00, the opening minute', '2026-01-05T09:00:00Z', true],
    ['Monday 17:00, the closing minute', '2026-01-05T17:00:00Z', false],
    ['Monday 08:59', '2026-01-05T08:59:59Z', false],
    ['Monday 17:30 in summer (BST): 16:30 in UTC, which would be open', '2026-03-30T16:30:00Z', false],
    ['Monday 09:30 in summer (BST): 08:30 in UTC, which would be closed', '2026-03-30T08:30:00Z', true],
    ['Tuesday, not listed', '2026-01-06T12:00:00Z', false],
  ])('London, Monday 09:00–17:00: %s', async (_name, at, open) => {
    expect(await openAt(at, {})).toEqual({ open, reply: !open });
  });

  it('reads the weekday and the date in the firm’s zone, not in UTC’s', async () => {
    // 12:00 UTC on Monday 5 January 2026 is 02:00 on Tuesday 6 January at Kiritimati (UTC+14).
    const at = '2026-01-05T12:00:00Z';
    const kiritimati = { timeZone: 'Pacific/Kiritimati' };
    expect((await openAt(at, { ...kiritimati, week: [ALL_DAY(2)] })).open).toBe(true);
    expect((await openAt(at, { ...kiritimati, week: [ALL_DAY(1)] })).open).toBe(false);
    expect((await openAt(at, { ...kiritimati, week: EVERY_DAY, closedDates: ['2026-01-06'] })).open).toBe(false);
    expect((await openAt(at, { ...kiritimati, week: EVERY_DAY, closedDates: ['2026-01-05'] })).open).toBe(true);
  });

  it('split hours, 24:00, closed dates, and no reply without hours or without a reply', async () => {
    const split = [
      { day: 1, opens: '09:00', closes: '12:00' },
      { day: 1, opens: '13:00', closes: '17:00' },
    ];
    expect((await openAt('2026-01-05T12:30:00Z', { week: split })).open).toBe(false);
    expect((await openAt('2026-01-05T13:30:00Z', { week: split })).open).toBe(true);
    expect((await openAt('2026-01-04T23:59:59Z', { week: [ALL_DAY(7)] })).open).toBe(true);
    expect((await openAt('2026-01-05T00:00:00Z', { week: [ALL_DAY(7)] })).open).toBe(false);
    expect(await openAt('2026-01-05T12:00:00Z', { closedDates: ['2026-01-05'] })).toEqual({ open: false, reply: true });
    expect(await openAt('2026-01-05T20:00:00Z', { week: [] })).toEqual({ open: false, reply: false });
    expect(await openAt('2026-01-05T20:00:00Z', { autoReply: null })).toEqual({ open: false, reply: false });
  });
});

describe('the out-of-hours reply', () => {
  beforeEach(() => {
    firmZone = zoneAwayFromMidnight();
  });

  it('is sent to a client who writes when the firm is closed, and shows in their thread as automatic', async () => {
    await live.director.settings.setBusinessHours.mutate(closedNow());
    expect((await live.staff.settings.businessHours.query()).openNow).toBe(false);
    expect((await live.sim.sendInbound(AMELIA, 'Are you there?')).status).toBe(200);
    await expectOneReplySent(AMELIA, amelia.id);
    const thread = await live.staff.inbox.thread.query({ clientId: amelia.id });
    expect(thread.items.map((i) => [i.direction, i.body, i.metadata.auto_reply ?? false])).toEqual([
      ['inbound', 'Are you there?', false],
      ['outbound', REPLY, true],
    ]);
    // The automatic reply answers no one's question: she is still waiting for a person.
    const awaiting = await live.staff.inbox.threads.query({ filter: 'awaiting_reply' });
    expect(awaiting.threads.map((t) => t.clientId)).toContain(amelia.id);
  });

  it('is sent once in 12 hours per number: a second message gets none, and one after the mark is 13 hours old gets one', async () => {
    await live.director.settings.setBusinessHours.mutate(closedNow());
    const number = '447700900201';
    live.sim.markInbound(number);
    await live.sim.sendInbound(number, 'First');
    await expectOneReplySent(number, null);
    await live.sim.sendInbound(number, 'Second, an hour later');
    expect(await queuedFor(number)).toHaveLength(1);
    await sql(live.server.databaseUrl, "UPDATE auto_reply_marks SET last_at = now() - interval '13 hours' WHERE digits = $1", [number]);
    await live.sim.sendInbound(number, 'Third, the next day');
    expect(await queuedFor(number)).toHaveLength(2);
    await vi.waitFor(() => expect(sentTo(number)).toHaveLength(2), { timeout: 20_000, interval: 100 });
  });

  it('is not sent while the firm is open, nor when no reply is set, nor to a number that opted out, nor for a STOP', async () => {
    await live.director.settings.setBusinessHours.mutate(openNow());
    await live.sim.sendInbound('447700900202', 'Open now?');
    await expectNoReply('447700900202');

    await live.director.settings.setBusinessHours.mutate(closedNow(firmZone, null));
    await live.sim.sendInbound('447700900203', 'No reply set');
    await expectNoReply('447700900203');

    await live.director.settings.setBusinessHours.mutate(closedNow());
    await live.sim.sendInbound('447700900204', 'STOP');
    await expectNoReply('447700900204');
    await live.sim.sendInbound('447700900204', 'Actually, one question');
    await expectNoReply('447700900204');

    // An echo of what the firm sent from its phone is not a client writing.
    await live.sim.sendInboundKind({ kind: 'echo', to: '447700900205', body: 'Sent from the firm’s phone' });
    await expectNoReply('447700900205');
  });

  it('answers a batch of messages from one number in one delivery once, and a STOP in the batch answers none of its number', async () => {
    await live.director.settings.setBusinessHours.mutate(closedNow());
    for (const n of ['447700900206', '447700900207', '447700900208']) live.sim.markInbound(n);
    const at = String(Math.floor(Date.now() / 1000));
    const delivery = cloudPayload({
      messages: [
        textMessage('wamid.bh-batch-1', '447700900206', 'One', at),
        textMessage('wamid.bh-batch-2', '447700900206', 'Two', at),
        { from: '447700900206', id: 'wamid.bh-batch-3', timestamp: at, type: 'location', location: { latitude: 51.5, longitude: -0.12 } },
        textMessage('wamid.bh-batch-4', '447700900207', 'Me too', at),
        textMessage('wamid.bh-batch-5', '447700900208', 'Hello', at),
        textMessage('wamid.bh-batch-6', '447700900208', 'Stop', at),
      ],
    });
    expect(await postWebhook(live.server.url, delivery)).toMatchObject({ status: 200, json: { stored: 6 } });
    await expectOneReplySent('447700900206', null);
    await expectOneReplySent('447700900207', null);
    await expectNoReply('447700900208');
    // The provider delivers it again: nothing new stored, nothing queued again.
    expect(await postWebhook(live.server.url, delivery)).toMatchObject({ status: 200, json: { stored: 0 } });
    expect(await queuedFor('447700900206')).toHaveLength(1);
  });

  it('answers none of a number whose preferences say STOP in the same delivery', async () => {
    await live.director.settings.setBusinessHours.mutate(closedNow());
    live.sim.markInbound('447700900219');
    const at = Math.floor(Date.now() / 1000);
    const delivery = cloudPayload({
      messages: [textMessage('wamid.bh-pref-1', '447700900219', 'Hello there', String(at))],
      user_preferences: [{ wa_id: '447700900219', category: 'marketing_messages', value: 'stop', timestamp: at }],
    });
    expect(await postWebhook(live.server.url, delivery)).toMatchObject({ status: 200, json: { stored: 1 } });
    await expectNoReply('447700900219');
  });

  it('is queued once when deliveries from one number arrive at the same moment', async () => {
    await live.director.settings.setBusinessHours.mutate(closedNow());
    const number = '447700900209';
    live.sim.markInbound(number);
    // Written just now (a message older than 15 minutes on arrival is never answered).
    const at = String(Math.floor(Date.now() / 1000));
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        postWebhook(live.server.url, cloudPayload({ messages: [textMessage(`wamid.bh-race-${i}`, number, `At once ${i}`, at)] })),
      ),
    );
    expect(answers.every((a) => a.status === 200)).toBe(true);
    await expectOneReplySent(number, null);
  });

  it('decides by the firm’s own date and weekday where they differ from UTC’s', async () => {
    // UTC is the contrast, so its own date must hold (it waits only in the four minutes around UTC's midnight).
    await awayFromMidnight('UTC');
    // At any moment one of these has a date other than UTC's, away from its midnight: Kiritimati from 10:00 UTC,
    // Pago Pago before 11:00 UTC.
    const zone = ['Pacific/Kiritimati', 'Pacific/Pago_Pago'].find((z) => {
      const { date, minutes } = localMoment(z);
      return date !== localMoment('UTC').date && minutes > 1 && minutes < 24 * 60 - 2;
    })!;
    const local = localMoment(zone);
    const utc = localMoment('UTC');
    expect(local.date).not.toBe(utc.date);
    expect(local.day).not.toBe(utc.day);

    // Open all day on the firm's weekday; closed on UTC's date: open (UTC's date is not the firm's today).
    await live.director.settings.setBusinessHours.mutate({
      timeZone: zone,
      week: [ALL_DAY(local.day)],
      closedDates: [utc.date],
      autoReply: REPLY,
    });
    await live.sim.sendInbound('447700900210', 'Firm’s weekday');
    await expectNoReply('447700900210');

    // Open all day on UTC's weekday only: closed by the firm's.
    await live.director.settings.setBusinessHours.mutate({ timeZone: zone, week: [ALL_DAY(utc.day)], closedDates: [], autoReply: REPLY });
    await live.sim.sendInbound('447700900211', 'UTC’s weekday');
    await expectOneReplySent('447700900211', null);

    // Open every day, but the firm's today is a closed date.
    await live.director.settings.setBusinessHours.mutate({ timeZone: zone, week: EVERY_DAY, closedDates: [local.date], autoReply: REPLY });
    await live.sim.sendInbound('447700900212', 'Holiday');
    await expectOneReplySent('447700900212', null);
  }, 240_000);
});
