import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createClient } from '../../server/crm/clients';
import { startLiveSetup, type TLiveSetup } from '../support/live-setup';
import { match } from '../support/matchers';
import { failureOf } from '../support/trpc-failure';
import { localMoment, zoneAwayFromMidnight } from '../support/zone-clock';
import { cloudPayload, postWebhook, sql, textMessage } from '../support/webhook';

// The client's time, and a reply that stops a follow-up (server/messaging/README.md "Business hours", "Scheduled sends"):
// the out-of-hours reply judges when the client wrote (the message's own timestamp, in the firm's
// zone), never answers a message more than 15 minutes old on arrival; a send scheduled with
// `unlessReplied` is not sent if the client wrote after it was scheduled. Times are injected (the
// timestamps in webhook payloads, sends brought forward by reschedule): nothing waits them out.

let live: TLiveSetup;
let staffId: number;
const REPLY = 'Our office is closed: we will answer when we open.';

beforeAll(async () => {
  live = await startLiveSetup();
  const [staff] = await sql<{ id: number }>(live.server.databaseUrl, `SELECT id FROM users WHERE email = 'sam@firm.test'`);
  staffId = staff!.id;
  await live.director.chat.refreshTemplates.mutate();
});
afterAll(() => live?.stop());

const hhmm = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

/**
 * A firm zone whose clock is at least 25 minutes past midnight and 2 minutes before the next (so that
 * "20 minutes ago" and the next two minutes are the same day), with its weekday and minutes now.
 */
function firmToday(): { zone: string; day: number; minutes: number } {
  const zone = zoneAwayFromMidnight({ after: 25, before: 2 });
  return { zone, ...localMoment(zone) };
}

let numbers = 0;
const nextNumber = () => `4477009003${String(++numbers).padStart(2, '0')}`;

/** A client's text written `minutesAgo` minutes ago (the provider's timestamp), delivered now; `null`: no timestamp at all. */
async function deliverWritten(digits: string, minutesAgo: number | null): Promise<void> {
  const id = `wamid.rh-${digits}-${Date.now()}`;
  const message =
    minutesAgo === null
      ? { from: digits, id, type: 'text', text: { body: 'No time on this one' } }
      : textMessage(id, digits, `Written ${minutesAgo} minutes ago`, String(Math.floor((Date.now() - minutesAgo * 60_000) / 1000)));
  expect(await postWebhook(live.server.url, cloudPayload({ messages: [message] }))).toMatchObject({ status: 200, json: { stored: 1 } });
}

const queuedFor = (digits: string) =>
  sql<{ id: string }>(live.server.databaseUrl, "SELECT id FROM scheduled_sends WHERE kind = 'auto_reply' AND to_digits = $1", [digits]);
const repliesSentTo = (digits: string) =>
  live.sim.requests.filter((r) => r.method === 'POST' && r.path === '/messages' && (r.body as { to?: string }).to === digits);

/** Queued in the statement that stored the message, and reaching the provider once. */
async function expectReply(digits: string): Promise<void> {
  expect(await queuedFor(digits)).toHaveLength(1);
  await vi.waitFor(() => expect(repliesSentTo(digits)).toHaveLength(1), { timeout: 20_000, interval: 100 });
}
/** Nothing queued by the time the webhook answered is ever sent: the reply is only queued in that statement. */
async function expectNoReply(digits: string): Promise<void> {
  expect(await queuedFor(digits)).toEqual([]);
  expect(repliesSentTo(digits)).toEqual([]);
}

describe('the out-of-hours reply judges the client’s time', () => {
  it('a message written while the firm was open but delivered after it closed gets no reply', async () => {
    const { zone, day, minutes } = firmToday();
    // Open today until this very minute: closed now, open five minutes ago.
    await live.director.settings.setBusinessHours.mutate({
      timeZone: zone,
      week: [{ day, opens: '00:00', closes: hhmm(minutes) }],
      closedDates: [],
      autoReply: REPLY,
    });
    const writtenOpen = nextNumber();
    const writtenClosed = nextNumber();
    for (const n of [writtenOpen, writtenClosed]) live.sim.markInbound(n);
    await deliverWritten(writtenOpen, 5);
    await deliverWritten(writtenClosed, 0);
    await expectNoReply(writtenOpen);
    // The same hours answer one written now: the firm is indeed closed now.
    await expectReply(writtenClosed);
  });

  it('a message written before opening and delivered just after, within 15 minutes, gets the reply', async () => {
    const { zone, day, minutes } = firmToday();
    // Open today from this very minute: open now, closed ten minutes ago.
    await live.director.settings.setBusinessHours.mutate({
      timeZone: zone,
      week: [{ day, opens: hhmm(minutes), closes: '24:00' }],
      closedDates: [],
      autoReply: REPLY,
    });
    const writtenClosed = nextNumber();
    const writtenOpen = nextNumber();
    for (const n of [writtenClosed, writtenOpen]) live.sim.markInbound(n);
    await deliverWritten(writtenClosed, 10);
    await deliverWritten(writtenOpen, 0);
    await expectReply(writtenClosed);
    await expectNoReply(writtenOpen);
  });

  it('a message written out of hours but 20 minutes old when it arrives gets none, nor one whose time is not known; one 14 minutes old gets one', async () => {
    const { zone, day } = firmToday();
    // Open only tomorrow: closed now and for the last 20 minutes.
    await live.director.settings.setBusinessHours.mutate({
      timeZone: zone,
      week: [{ day: (day % 7) + 1, opens: '09:00', closes: '17:00' }],
      closedDates: [],
      autoReply: REPLY,
    });
    const stale = nextNumber();
    const fresh = nextNumber();
    const untimed = nextNumber();
    for (const n of [stale, fresh, untimed]) live.sim.markInbound(n);
    await deliverWritten(stale, 20);
    await deliverWritten(fresh, 14);
    // No provider time: its age cannot be known, so it is not answered.
    await deliverWritten(untimed, null);
    await expectNoReply(stale);
    await expectReply(fresh);
    await expectNoReply(untimed);
  });
});

describe('a scheduled send that waits for no reply (unlessReplied)', () => {
  let phones = 0;
  const nextDigits = () => `4477009662${String(++phones).padStart(2, '0')}`;
  const inSeconds = (seconds: number) => new Date(Date.now() + seconds * 1000);
  /** A client whose number wrote just now (its 24-hour window open): a reply before anything is scheduled. */
  const clientWhoWrote = async (name: string) => {
    const digits = nextDigits();
    const { id } = await createClient({ name, phone: `+${digits}` });
    expect((await live.sim.sendInbound(digits, `Hello from ${name}`)).status).toBe(200);
    return { id, digits };
  };
  const outcomeOf = async (id: number) => {
    const [row] = await sql<{ state: string; status: string | null }>(
      live.server.databaseUrl,
      'SELECT s.state, c.status FROM scheduled_sends s LEFT JOIN communications c ON c.id = s.communication_id WHERE s.id = $1',
      [id],
    );
    return `${row?.state}:${row?.status ?? '-'}`;
  };
  const sendsWith = (text: string) => live.sim.requests.filter((r) => r.path === '/messages' && JSON.stringify(r.body).includes(text));

  beforeAll(async () => {
    // No automatic replies in the way of the messages these clients write.
    await live.director.settings.setBusinessHours.mutate({ timeZone: 'Europe/London', week: [], closedDates: [], autoReply: null });
  });

  it('is not sent when the client writes after it was scheduled: "the client replied", its author told, the provider given nothing', async () => {
    const amelia = await clientWhoWrote('Amelia Hart');
    const body = 'Did you get the letter we sent?';
    const { id } = await live.staff.chat.schedule.mutate({
      clientId: amelia.id,
      body: 'A first draft',
      sendAt: inSeconds(3600),
      unlessReplied: true,
    });
    // Edited and rescheduled, it still waits for no reply.
    await live.staff.chat.editScheduled.mutate({ id, body });
    expect(await live.staff.chat.scheduled.query({ clientId: amelia.id })).toEqual([
      match.objectContaining({ id, body, state: 'scheduled', unlessReplied: true }),
    ]);
    expect((await live.sim.sendInbound(amelia.digits, 'Yes, got it, thanks')).status).toBe(200);
    await live.staff.chat.reschedule.mutate({ id, sendAt: new Date() });

    await expect.poll(() => outcomeOf(id), { timeout: 15_000 }).toBe('not_sent:-');
    const [listed] = await live.staff.chat.scheduled.query({ clientId: amelia.id });
    expect(listed).toMatchObject({ id, state: 'not_sent', unlessReplied: true, reason: match.stringMatching(/^The client replied/) });
    expect(sendsWith(body)).toEqual([]);
    expect(await sql(live.server.databaseUrl, `SELECT user_id, kind FROM notifications WHERE scheduled_send_id = $1`, [id])).toEqual([
      { user_id: staffId, kind: 'scheduled_not_sent' },
    ]);
    const [audited] = await sql<{ detail: Record<string, unknown> }>(
      live.server.databaseUrl,
      `SELECT detail FROM audit_events WHERE action = 'chat.schedule' AND detail->>'scheduledSendId' = $1`,
      [String(id)],
    );
    expect(audited?.detail).toMatchObject({ unlessReplied: true });
  });

  it('goes when the client has not written since it was scheduled: a reply before it does not stop it, nor one to a send without the option', async () => {
    const ben = await clientWhoWrote('Ben Carter');
    const waits = await live.staff.chat.schedule.mutate({
      clientId: ben.id,
      body: 'Following up, Ben',
      sendAt: inSeconds(3600),
      unlessReplied: true,
    });
    const plain = await live.staff.chat.schedule.mutate({
      clientId: ben.id,
      body: 'Your appointment is on Monday',
      sendAt: inSeconds(3600),
    });
    expect((await live.staff.chat.scheduled.query({ clientId: ben.id })).map((s) => [s.id, s.unlessReplied])).toEqual([
      [waits.id, true],
      [plain.id, false],
    ]);
    await live.staff.chat.reschedule.mutate({ id: waits.id, sendAt: new Date() });
    await expect.poll(() => outcomeOf(waits.id), { timeout: 15_000 }).toBe('sent:sent');
    expect(sendsWith('Following up, Ben')).toHaveLength(1);

    // A template to a number that never wrote: nothing to reply, so it goes.
    const digits = nextDigits();
    const cara = await createClient({ name: 'Cara Doyle', phone: `+${digits}` });
    const template = { name: 'appointment_reminder', language: 'en_GB', params: ['Cara', 'Ms Hale', 'Monday 10:00'] };
    const reminder = await live.staff.chat.schedule.mutate({ clientId: cara.id, template, sendAt: new Date(), unlessReplied: true });
    await expect.poll(() => outcomeOf(reminder.id), { timeout: 15_000 }).toBe('sent:sent');

    // Without the option, a reply changes nothing.
    expect((await live.sim.sendInbound(ben.digits, 'Thanks!')).status).toBe(200);
    await live.staff.chat.reschedule.mutate({ id: plain.id, sendAt: new Date() });
    await expect.poll(() => outcomeOf(plain.id), { timeout: 15_000 }).toBe('sent:sent');
  });

  it('a message the client wrote before it was scheduled, delivered after, is no reply: it goes', async () => {
    const erin = await clientWhoWrote('Erin Fox');
    const { id } = await live.staff.chat.schedule.mutate({
      clientId: erin.id,
      body: 'Checking in, Erin',
      sendAt: inSeconds(3600),
      unlessReplied: true,
    });
    // Written ten minutes ago (the provider's time), delivered only now.
    const late = textMessage(
      `wamid.rh-late-${erin.digits}`,
      erin.digits,
      'Sent from a tunnel',
      String(Math.floor(Date.now() / 1000) - 600),
    );
    expect(await postWebhook(live.server.url, cloudPayload({ messages: [late] }))).toMatchObject({ status: 200, json: { stored: 1 } });
    await live.staff.chat.reschedule.mutate({ id, sendAt: new Date() });
    await expect.poll(() => outcomeOf(id), { timeout: 15_000 }).toBe('sent:sent');
    expect(sendsWith('Checking in, Erin')).toHaveLength(1);
  });

  it('a text that could only go if the client wrote again (due after the 24-hour window) is refused when it waits for no reply', async () => {
    const dora = await clientWhoWrote('Dora Evans');
    const refused = await failureOf(
      live.staff.chat.schedule.mutate({ clientId: dora.id, body: 'In two days', sendAt: inSeconds(48 * 3600), unlessReplied: true }),
    );
    expect(refused.data?.code).toBe('BAD_REQUEST');
    expect(refused.data?.fieldErrors?.unlessReplied).toBeDefined();
    expect(refused.message).toMatch(/approved template/);
    // Within the window it is taken; moved past it, refused; a template reaches past it.
    const { id } = await live.staff.chat.schedule.mutate({
      clientId: dora.id,
      body: 'In an hour',
      sendAt: inSeconds(3600),
      unlessReplied: true,
    });
    const moved = await failureOf(live.staff.chat.reschedule.mutate({ id, sendAt: inSeconds(48 * 3600) }));
    expect(moved.data?.fieldErrors?.unlessReplied).toBeDefined();
    const template = { name: 'appointment_reminder', language: 'en_GB', params: ['Dora', 'Ms Hale', 'Monday 10:00'] };
    await live.staff.chat.schedule.mutate({ clientId: dora.id, template, sendAt: inSeconds(48 * 3600), unlessReplied: true });
    expect((await live.staff.chat.scheduled.query({ clientId: dora.id })).map((s) => s.kind)).toEqual(['text', 'template']);
  });
});
