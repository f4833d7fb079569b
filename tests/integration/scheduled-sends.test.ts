import pg from 'pg';
import { TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WINDOW_CLOSED_PREFIX } from '../../shared/provider-messages';
import { createUser } from '../../server/auth/users';
import { Communication } from '../../server/core/db/models/index';
import { createClient } from '../../server/crm/clients';
import { pruneExpiredRows } from '../../server/maintenance/prune-expired';
import type { AppRouter } from '../../server/app/app-router';
import { startLiveSetup, SIM_API_KEY, type TLiveSetup } from '../support/live-setup';
import { isConnected, openLiveStream } from '../support/live-stream';
import { match } from '../support/matchers';
import { startServerProcess, type TServerProcess } from '../support/server-process';
import { sql } from '../support/sql';
import { createHttpClient } from '../support/test-server';
import { WEBHOOK_SECRET } from '../support/webhook';

// Scheduled sends (server/messaging/README.md "Scheduled sends"): the row is the queue, every instance polls it, and a
// row stops being due in the transaction that writes its message's record. What the tests hold:
// a send goes at its time, once — across two instances, a stop and a crash mid-send — with the
// checks a send now makes made again at its time (the window, an opt-out, the walls, the file), and
// every change by its author or a director only while it waits.

type TRow = {
  id: number;
  state: string;
  reason: string | null;
  communication_id: number | null;
  send_at: Date;
  attempts: number;
  body: string | null;
};

const inSeconds = (seconds: number) => new Date(Date.now() + seconds * 1000);
const PDF = Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n');

async function failureOf(promise: Promise<unknown>): Promise<TRPCClientError<AppRouter>> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TRPCClientError);
  return error as TRPCClientError<AppRouter>;
}

let phones = 0;
const nextDigits = () => `4477009661${String(++phones).padStart(2, '0')}`;

/**
 * A scheduled send's state and its record's status ("sent:sent" once the provider has accepted it;
 * the row is `sent` as soon as its record is written, before the provider is called).
 */
async function outcomeOf(databaseUrl: string, id: number): Promise<string> {
  const [row] = await sql<{ state: string; status: string | null }>(
    databaseUrl,
    'SELECT s.state, c.status FROM scheduled_sends s LEFT JOIN communications c ON c.id = s.communication_id WHERE s.id = $1',
    [id],
  );
  return `${row?.state}:${row?.status ?? '-'}`;
}

/** `promise`, or a failure naming what did not happen within `seconds`. */
function withinSeconds<T>(seconds: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not within ${seconds} s`)), seconds * 1000);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** The provider's /messages calls whose body mentions `text`. */
const sendsWith = (live: TLiveSetup, text: string) =>
  live.sim.requests.filter((r) => r.path === '/messages' && JSON.stringify(r.body).includes(text));

describe('on one server', () => {
  let live: TLiveSetup;
  let staffId: number;
  let directorId: number;
  const rowOf = async (id: number) => (await sql<TRow>(live.server.databaseUrl, 'SELECT * FROM scheduled_sends WHERE id = $1', [id]))[0]!;
  const stateOf = async (id: number) => (await rowOf(id)).state;
  /** A client whose number wrote just now (its 24-hour window is open). */
  const clientWhoWrote = async (name: string) => {
    const digits = nextDigits();
    const { id } = await createClient({ name, phone: `+${digits}` });
    expect((await live.sim.sendInbound(digits, `Hello from ${name}`)).status).toBe(200);
    return { id, digits };
  };
  const upload = async (name: string, cookie = live.staffCookie) => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(PDF)], { type: 'application/pdf' }), name);
    const res = await fetch(`${live.server.url}/api/media`, { method: 'POST', body: form, headers: { cookie } });
    expect(res.status).toBe(200);
    return ((await res.json()) as { attachmentId: number }).attachmentId;
  };

  beforeAll(async () => {
    live = await startLiveSetup();
    const [staff, director] = await sql<{ id: number }>(
      live.server.databaseUrl,
      `SELECT id FROM users WHERE email IN ('sam@firm.test', 'dee@firm.test') ORDER BY email DESC`,
    );
    staffId = staff!.id;
    directorId = director!.id;
    await live.director.chat.refreshTemplates.mutate();
  });
  afterAll(() => live?.stop());

  it('a text scheduled a few seconds ahead is listed, then sent at its time, once, its record marked with the scheduled send', async () => {
    const amelia = await clientWhoWrote('Amelia Hart');
    const body = 'Your hearing is at 10:00 tomorrow.';
    const sendAt = inSeconds(2);
    const { id } = await live.staff.chat.schedule.mutate({ clientId: amelia.id, body, sendAt });

    const listed = await live.staff.chat.scheduled.query({ clientId: amelia.id });
    expect(listed).toEqual([
      match.objectContaining({
        id,
        kind: 'text',
        body,
        state: 'scheduled',
        reason: null,
        sendAt,
        author: { id: staffId, name: 'Sam Staff' },
        clientId: amelia.id,
        clientName: 'Amelia Hart',
        caseId: null,
        to: amelia.digits,
        communicationId: null,
      }),
    ]);
    expect((await live.staff.chat.scheduled.query()).map((s) => s.id)).toContain(id);
    // Anyone who may see the client sees the conversation's list; a person's own list is their own.
    expect((await live.director.chat.scheduled.query({ clientId: amelia.id })).map((s) => s.id)).toEqual([id]);
    expect((await live.director.chat.scheduled.query()).map((s) => s.id)).not.toContain(id);
    expect(sendsWith(live, body)).toHaveLength(0);

    await expect.poll(() => outcomeOf(live.server.databaseUrl, id), { timeout: 15_000 }).toBe('sent:sent');
    const row = await rowOf(id);
    const record = (await Communication.findByPk(row.communication_id!))!;
    expect(record).toMatchObject({ body, status: 'sent', sentBy: staffId, clientId: amelia.id, peerPhone: amelia.digits });
    expect(record.metadata.scheduled_send_id).toBe(id);
    expect(new Date(record.createdAt).getTime()).toBeGreaterThanOrEqual(sendAt.getTime() - 50);
    expect(sendsWith(live, body)).toHaveLength(1);
    expect(await live.staff.chat.scheduled.query({ clientId: amelia.id })).toEqual([]);

    const [audited] = await sql<{ subject: string; user_id: number; detail: Record<string, unknown> }>(
      live.server.databaseUrl,
      `SELECT subject, user_id, detail FROM audit_events WHERE action = 'chat.schedule' AND detail->>'scheduledSendId' = $1`,
      [String(id)],
    );
    expect(audited).toEqual({
      subject: `client:${amelia.id}`,
      user_id: staffId,
      detail: { scheduledSendId: id, kind: 'text', sendAt: sendAt.toISOString() },
    });
  });

  it('edited and rescheduled, it goes with its new words at its new time; a cancelled one never goes; each change is audited without its words', async () => {
    const ben = await clientWhoWrote('Ben Carter');
    const first = await live.staff.chat.schedule.mutate({ clientId: ben.id, body: 'Draft words for Ben', sendAt: inSeconds(3600) });
    await live.staff.chat.editScheduled.mutate({ id: first.id, body: '  Final words for Ben  ' });
    expect((await live.staff.chat.scheduled.query({ clientId: ben.id }))[0]).toMatchObject({ id: first.id, body: 'Final words for Ben' });
    const cancelled = await live.staff.chat.schedule.mutate({ clientId: ben.id, body: 'Never send this to Ben', sendAt: inSeconds(2) });
    expect(await live.staff.chat.cancelScheduled.mutate({ id: cancelled.id })).toMatchObject({ id: cancelled.id, state: 'cancelled' });
    await live.staff.chat.reschedule.mutate({ id: first.id, sendAt: inSeconds(1) });
    // Queued after the cancelled one: once it has gone, the cancelled one's time has long passed.
    const marker = await live.staff.chat.schedule.mutate({ clientId: ben.id, body: 'Marker for Ben', sendAt: inSeconds(3) });

    await expect.poll(() => outcomeOf(live.server.databaseUrl, marker.id), { timeout: 15_000 }).toBe('sent:sent');
    await expect.poll(() => outcomeOf(live.server.databaseUrl, first.id), { timeout: 15_000 }).toBe('sent:sent');
    expect(sendsWith(live, 'Final words for Ben')).toHaveLength(1);
    expect(sendsWith(live, 'Draft words')).toHaveLength(0);
    expect(sendsWith(live, 'Never send this')).toHaveLength(0);
    expect(await rowOf(cancelled.id)).toMatchObject({ state: 'cancelled', communication_id: null });

    // Only while it waits.
    const sent = await failureOf(live.staff.chat.reschedule.mutate({ id: first.id, sendAt: inSeconds(60) }));
    expect(sent.data?.code).toBe('CONFLICT');
    expect(sent.message).toMatch(/already been sent/);
    expect((await failureOf(live.staff.chat.editScheduled.mutate({ id: first.id, body: 'Too late' }))).data?.code).toBe('CONFLICT');
    const again = await failureOf(live.staff.chat.cancelScheduled.mutate({ id: cancelled.id }));
    expect(again.data?.code).toBe('CONFLICT');
    expect(again.message).toMatch(/already been cancelled/);

    const trail = await sql<{ action: string; subject: string; detail: Record<string, unknown> }>(
      live.server.databaseUrl,
      `SELECT action, subject, detail FROM audit_events WHERE detail->>'scheduledSendId' IN ($1, $2) ORDER BY id`,
      [String(first.id), String(cancelled.id)],
    );
    expect(trail.map((t) => t.action)).toEqual([
      'chat.schedule',
      'chat.edit_scheduled',
      'chat.schedule',
      'chat.cancel_scheduled',
      'chat.reschedule',
    ]);
    expect(trail.every((t) => t.subject === `client:${ben.id}`)).toBe(true);
    expect(JSON.stringify(trail)).not.toMatch(/words|Never send/);
  });

  it('cancelled after a worker took it up but before its record was written, it does not go', async () => {
    const ada = await clientWhoWrote('Ada Nash');
    // While records cannot be written, the worker that leased it waits at its record's INSERT.
    const lock = new pg.Client({ connectionString: live.server.databaseUrl });
    await lock.connect();
    const { id } = await live.staff.chat.schedule.mutate({ clientId: ada.id, body: 'Cancelled at the last moment', sendAt: inSeconds(1) });
    try {
      await lock.query('BEGIN');
      await lock.query('LOCK TABLE communications IN EXCLUSIVE MODE');
      const waitingInsert = async () =>
        (
          await sql<{ n: number }>(
            live.server.databaseUrl,
            `SELECT count(*)::int AS n FROM pg_stat_activity
             WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'INSERT INTO "communications"%'`,
          )
        )[0]!.n;
      await expect.poll(waitingInsert, { timeout: 10_000, interval: 20 }).toBe(1);
      expect(await live.staff.chat.cancelScheduled.mutate({ id })).toMatchObject({ state: 'cancelled' });
      await lock.query('COMMIT');
    } finally {
      await lock.end();
    }
    const marker = await live.staff.chat.schedule.mutate({ clientId: ada.id, body: 'After the last moment', sendAt: inSeconds(0) });
    await expect.poll(() => outcomeOf(live.server.databaseUrl, marker.id), { timeout: 15_000 }).toBe('sent:sent');
    expect(await rowOf(id)).toMatchObject({ state: 'cancelled', communication_id: null });
    expect(
      await sql(live.server.databaseUrl, `SELECT id FROM communications WHERE metadata->>'scheduled_send_id' = $1`, [String(id)]),
    ).toEqual([]);
    expect(sendsWith(live, 'Cancelled at the last moment')).toHaveLength(0);
  });

  it('its author or a director may change it; another member of staff may not, and a live page hears of each change', async () => {
    const cleo = await clientWhoWrote('Cleo Dunn');
    await createUser({ email: 'pat@firm.test', name: 'Pat Other', role: 'staff', password: 'staff-password-2' });
    const pat = createHttpClient(live.server.url).client;
    await pat.auth.signIn.mutate({ email: 'pat@firm.test', password: 'staff-password-2' });
    const { id } = await live.staff.chat.schedule.mutate({ clientId: cleo.id, body: 'For Cleo', sendAt: inSeconds(3600) });

    expect((await pat.chat.scheduled.query({ clientId: cleo.id })).map((s) => s.id)).toEqual([id]);
    for (const change of [
      () => pat.chat.cancelScheduled.mutate({ id }),
      () => pat.chat.editScheduled.mutate({ id, body: 'Not mine' }),
      () => pat.chat.reschedule.mutate({ id, sendAt: inSeconds(60) }),
    ]) {
      const refused = await failureOf(change());
      expect(refused.data?.code).toBe('FORBIDDEN');
    }
    expect(await rowOf(id)).toMatchObject({ state: 'scheduled', body: 'For Cleo' });

    const stream = await openLiveStream(live.server.url, live.staffCookie);
    try {
      await stream.waitFor(isConnected);
      const from = stream.frames.length;
      const later = inSeconds(7200);
      expect(await live.director.chat.reschedule.mutate({ id, sendAt: later })).toMatchObject({ id, state: 'scheduled', sendAt: later });
      await stream.waitFor((frame) => frame.data?.includes('"ownership":true') === true, 5_000, from);
    } finally {
      stream.close();
    }
    expect(await live.director.chat.cancelScheduled.mutate({ id })).toMatchObject({ state: 'cancelled' });
    const [audited] = await sql<{ user_id: number }>(
      live.server.databaseUrl,
      `SELECT user_id FROM audit_events WHERE action = 'chat.cancel_scheduled' AND detail->>'scheduledSendId' = $1`,
      [String(id)],
    );
    expect(audited?.user_id).toBe(directorId);
  });

  it('refuses bad input with a clear error, and keeps nothing', async () => {
    const dora = await clientWhoWrote('Dora Evans');
    const count = async () => (await sql<{ n: number }>(live.server.databaseUrl, 'SELECT count(*)::int AS n FROM scheduled_sends'))[0]!.n;
    const before = await count();
    const template = { name: 'appointment_reminder', language: 'en_GB', params: ['Dora', 'Ms Hale', 'Monday 10:00'] };

    const past = await failureOf(live.staff.chat.schedule.mutate({ clientId: dora.id, body: 'Hi', sendAt: inSeconds(-300) }));
    expect(past.data?.code).toBe('BAD_REQUEST');
    expect(past.data?.fieldErrors?.sendAt?.[0]).toMatch(/passed/);
    const far = await failureOf(live.staff.chat.schedule.mutate({ clientId: dora.id, body: 'Hi', sendAt: inSeconds(367 * 86_400) }));
    expect(far.data?.fieldErrors?.sendAt?.[0]).toMatch(/year/);
    const two = await failureOf(live.staff.chat.schedule.mutate({ clientId: dora.id, body: 'Hi', template, sendAt: inSeconds(60) }));
    expect(two.data?.code).toBe('BAD_REQUEST');
    expect(two.message).toMatch(/one at a time/);
    const mine = await upload('Mine.pdf');
    const fileAndTemplate = await failureOf(
      live.staff.chat.schedule.mutate({ clientId: dora.id, attachmentId: mine, template, sendAt: inSeconds(60) }),
    );
    expect(fileAndTemplate.message).toMatch(/one at a time/);
    const empty = await failureOf(live.staff.chat.schedule.mutate({ clientId: dora.id, body: '   ', sendAt: inSeconds(60) }));
    expect(empty.data?.fieldErrors?.body?.[0]).toMatch(/Type a message/);
    const long = await failureOf(live.staff.chat.schedule.mutate({ clientId: dora.id, body: 'x'.repeat(4097), sendAt: inSeconds(60) }));
    expect(long.data?.fieldErrors?.body?.[0]).toMatch(/4096/);
    const theirs = await upload('Theirs.pdf', await cookieOf(live.server.url, 'dee@firm.test', 'director-password'));
    const notMine = await failureOf(live.staff.chat.schedule.mutate({ clientId: dora.id, attachmentId: theirs, sendAt: inSeconds(60) }));
    expect(notMine.data?.code).toBe('NOT_FOUND');
    expect(notMine.data?.fieldErrors?.attachmentId).toBeDefined();
    const unknown = await failureOf(
      live.staff.chat.schedule.mutate({ clientId: dora.id, template: { ...template, name: 'no_such_template' }, sendAt: inSeconds(60) }),
    );
    expect(unknown.data?.fieldErrors?.name).toBeDefined();
    const values = await failureOf(
      live.staff.chat.schedule.mutate({ clientId: dora.id, template: { ...template, params: ['Dora'] }, sendAt: inSeconds(60) }),
    );
    expect(values.data?.fieldErrors?.params).toBeDefined();
    const notTheirs = await failureOf(
      live.staff.chat.schedule.mutate({ clientId: dora.id, body: 'Hi', to: '+447700900999', sendAt: inSeconds(60) }),
    );
    expect(notTheirs.data?.fieldErrors?.to).toBeDefined();
    expect(await count()).toBe(before);

    // One upload waits in one scheduled send.
    await live.staff.chat.schedule.mutate({ clientId: dora.id, attachmentId: mine, body: 'Caption', sendAt: inSeconds(3600) });
    const twice = await failureOf(live.staff.chat.schedule.mutate({ clientId: dora.id, attachmentId: mine, sendAt: inSeconds(3600) }));
    expect(twice.data?.code).toBe('CONFLICT');
    expect(await count()).toBe(before + 1);

    // A number that opted out is refused now, as a send now would be.
    expect((await live.sim.sendInbound(dora.digits, 'STOP')).status).toBe(200);
    const optedOut = await failureOf(live.staff.chat.schedule.mutate({ clientId: dora.id, body: 'Hi', sendAt: inSeconds(60) }));
    expect(optedOut.data?.code).toBe('PRECONDITION_FAILED');
    expect(optedOut.message).toMatch(/asked not to receive chat messages/);
    expect(await count()).toBe(before + 1);
  });

  it('a file goes at its time with its caption; an upload it holds is not pruned, and one deleted before its time is not sent', async () => {
    const eve = await clientWhoWrote('Eve Foster');
    const letter = await upload('Letter.pdf');
    const { id } = await live.staff.chat.schedule.mutate({
      clientId: eve.id,
      attachmentId: letter,
      body: 'Your letter',
      sendAt: inSeconds(2),
    });
    expect((await live.staff.chat.scheduled.query({ clientId: eve.id }))[0]).toMatchObject({
      id,
      kind: 'file',
      body: 'Your letter',
      attachmentId: letter,
      fileName: 'Letter.pdf',
    });
    await expect.poll(() => outcomeOf(live.server.databaseUrl, id), { timeout: 15_000 }).toBe('sent:sent');
    const record = (await Communication.findByPk((await rowOf(id)).communication_id!))!;
    expect(record).toMatchObject({ body: 'Your letter', metadata: { kind: 'document', scheduled_send_id: id } });
    const [held] = await sql<{ communication_id: number }>(
      live.server.databaseUrl,
      'SELECT communication_id FROM attachments WHERE id = $1',
      [letter],
    );
    expect(held?.communication_id).toBe(record.id);
    expect(sendsWith(live, 'Your letter')).toHaveLength(1);

    // Uploads never sent are pruned after a day; one a scheduled send holds waits for its time.
    const later = await upload('Later.pdf');
    const waiting = await live.staff.chat.schedule.mutate({ clientId: eve.id, attachmentId: later, sendAt: inSeconds(3600) });
    const loose = await upload('Loose.pdf');
    await sql(live.server.databaseUrl, `UPDATE attachments SET created_at = now() - interval '2 days' WHERE id = ANY($1)`, [
      [later, loose],
    ]);
    await pruneExpiredRows();
    const kept = await sql<{ id: number }>(live.server.databaseUrl, 'SELECT id FROM attachments WHERE id = ANY($1)', [[later, loose]]);
    expect(kept.map((k) => k.id)).toEqual([later]);
    // Nor can it be sent now meanwhile, to anyone: it waits for its scheduled send.
    const sentNow = await failureOf(live.staff.chat.send.mutate({ clientId: eve.id, attachmentId: later, body: 'Now instead' }));
    expect(sentNow.data?.code).toBe('CONFLICT');
    expect(sentNow.message).toMatch(/waiting in a scheduled message/);
    expect(sendsWith(live, 'Now instead')).toHaveLength(0);

    // Deleted before its time (as retention or a person could): not sent, its author told why.
    await sql(live.server.databaseUrl, 'DELETE FROM attachments WHERE id = $1', [later]);
    await live.staff.chat.reschedule.mutate({ id: waiting.id, sendAt: inSeconds(0) });
    await expect.poll(() => stateOf(waiting.id), { timeout: 15_000 }).toBe('not_sent');
    expect((await rowOf(waiting.id)).reason).toBe('The file was deleted before its time.');
    const told = (await live.staff.notifications.list.query()).items.find((n) => n.scheduledSend?.id === waiting.id);
    expect(told).toMatchObject({ kind: 'scheduled_not_sent', threadRef: { clientId: eve.id }, threadName: 'Eve Foster' });
  });

  it('a template with a document header goes with its file; the header is checked when it is scheduled', async () => {
    const gus = await clientWhoWrote('Gus Hale');
    const params = ['Gus', 'the lease'];
    const missing = await failureOf(
      live.staff.chat.schedule.mutate({
        clientId: gus.id,
        template: { name: 'document_attached', language: 'en_GB', params },
        sendAt: inSeconds(60),
      }),
    );
    expect(missing.data?.fieldErrors?.header?.[0]).toMatch(/Attach a document/);
    const lease = await upload('Lease.pdf');
    const { id } = await live.staff.chat.schedule.mutate({
      clientId: gus.id,
      template: { name: 'document_attached', language: 'en_GB', params, header: { attachmentId: lease } },
      sendAt: inSeconds(1),
    });
    expect((await live.staff.chat.scheduled.query({ clientId: gus.id }))[0]).toMatchObject({
      id,
      kind: 'template',
      attachmentId: lease,
      fileName: 'Lease.pdf',
    });
    await expect.poll(() => outcomeOf(live.server.databaseUrl, id), { timeout: 15_000 }).toBe('sent:sent');
    const record = (await Communication.findByPk((await rowOf(id)).communication_id!))!;
    expect(record.metadata).toMatchObject({ scheduled_send_id: id, template: { name: 'document_attached', header: { kind: 'document' } } });
    const sent = sendsWith(live, 'document_attached');
    expect(sent).toHaveLength(1);
    expect(JSON.stringify(sent[0]!.body)).toMatch(/"type":"header"/);
  });

  it('outside the 24-hour window at its time, a text is kept as not sent with the reason and its author told; a template still goes', async () => {
    const finn = await clientWhoWrote('Finn Grant');
    const text = await live.staff.chat.schedule.mutate({ clientId: finn.id, body: 'Free text for Finn', sendAt: inSeconds(2) });
    const template = await live.staff.chat.schedule.mutate({
      clientId: finn.id,
      template: { name: 'appointment_reminder', language: 'en_GB', params: ['Finn', 'Ms Hale', 'Friday 9:30'] },
      sendAt: inSeconds(2),
    });
    // Finn last wrote more than a day ago by the time they are due.
    await sql(
      live.server.databaseUrl,
      `UPDATE communications SET created_at = now() - interval '25 hours', provider_timestamp = now() - interval '25 hours'
       WHERE peer_phone = $1 AND direction = 'inbound'`,
      [finn.digits],
    );

    await expect.poll(() => stateOf(text.id), { timeout: 15_000 }).toBe('not_sent');
    const reason = (await rowOf(text.id)).reason!;
    expect(reason).toBe(`${WINDOW_CLOSED_PREFIX} Finn Grant last wrote: send an approved template instead.`);
    expect(sendsWith(live, 'Free text for Finn')).toHaveLength(0);
    await expect.poll(() => outcomeOf(live.server.databaseUrl, template.id), { timeout: 15_000 }).toBe('sent:sent');
    expect(sendsWith(live, 'appointment_reminder')).toHaveLength(1);

    // Still listed, with its reason, so its author sees it; and told, on the conversation.
    expect((await live.staff.chat.scheduled.query({ clientId: finn.id })).map((s) => [s.id, s.state, s.reason])).toEqual([
      [text.id, 'not_sent', reason],
    ]);
    const notifications = (await live.staff.notifications.list.query()).items.filter((n) => n.scheduledSend?.id === text.id);
    expect(notifications).toEqual([
      match.objectContaining({
        kind: 'scheduled_not_sent',
        threadRef: { clientId: finn.id },
        communicationId: null,
        scheduledSend: { id: text.id, reason, sendAt: match.any(Date) },
      }),
    ]);
    // Cancelling a send that could not go takes it off the list.
    await live.staff.chat.cancelScheduled.mutate({ id: text.id });
    expect(await live.staff.chat.scheduled.query({ clientId: finn.id })).toEqual([]);
  });

  it('an opt-out that arrives after it was scheduled stops it: not sent, no provider call, its author told', async () => {
    const gail = await clientWhoWrote('Gail Hughes');
    const { id } = await live.staff.chat.schedule.mutate({ clientId: gail.id, body: 'For Gail after STOP', sendAt: inSeconds(2) });
    expect((await live.sim.sendInbound(gail.digits, 'STOP')).status).toBe(200);
    await expect.poll(() => stateOf(id), { timeout: 15_000 }).toBe('not_sent');
    expect((await rowOf(id)).reason).toMatch(/^Gail Hughes asked not to receive chat messages/);
    expect(sendsWith(live, 'For Gail after STOP')).toHaveLength(0);
    expect((await live.staff.notifications.list.query()).items.some((n) => n.scheduledSend?.id === id)).toBe(true);
  });

  it('refused by the provider once its record is written, it stays sent: the record shows failed with its reason and a Retry, as any send', async () => {
    const hal = await clientWhoWrote('Hal Moss');
    live.sim.queueResponse({ status: 429 });
    const { id } = await live.staff.chat.schedule.mutate({ clientId: hal.id, body: 'Refused by the provider', sendAt: inSeconds(0) });
    await expect.poll(() => outcomeOf(live.server.databaseUrl, id), { timeout: 15_000 }).toBe('sent:failed');
    const record = (await Communication.findByPk((await rowOf(id)).communication_id!))!;
    expect(record.error).toMatch(/rate-limiting/);
    expect((await rowOf(id)).reason).toBeNull();
    expect(await sql(live.server.databaseUrl, 'SELECT 1 FROM notifications WHERE scheduled_send_id = $1', [id])).toEqual([]);
    const retried = await live.staff.chat.retry.mutate({ id: record.id });
    expect(retried).toMatchObject({ status: 'sent', body: 'Refused by the provider', metadata: { retry_of: record.id } });
  });

  it('a deactivated author’s send does not go, saying why', async () => {
    const hana = await clientWhoWrote('Hana Irwin');
    const leaver = await createUser({ email: 'leo@firm.test', name: 'Leo Leaver', role: 'staff', password: 'staff-password-3' });
    const leo = createHttpClient(live.server.url).client;
    await leo.auth.signIn.mutate({ email: 'leo@firm.test', password: 'staff-password-3' });
    const { id } = await leo.chat.schedule.mutate({ clientId: hana.id, body: 'From Leo to Hana', sendAt: inSeconds(2) });
    await live.director.users.deactivate.mutate({ userId: leaver.id });
    await expect.poll(() => stateOf(id), { timeout: 15_000 }).toBe('not_sent');
    expect((await rowOf(id)).reason).toMatch(/Leo Leaver’s account was deactivated/);
    expect(sendsWith(live, 'From Leo to Hana')).toHaveLength(0);
  });

  it('a number removed from the client before its time is not sent to, saying why, even one that wrote on their file', async () => {
    const kit = await clientWhoWrote('Kit Lowe');
    await live.director.clients.addNumber.mutate({ clientId: kit.id, phone: `+${nextDigits()}` });
    const { id } = await live.staff.chat.schedule.mutate({
      clientId: kit.id,
      to: `+${kit.digits}`,
      body: 'From us to Kit',
      sendAt: inSeconds(2),
    });
    // Removed, and given to someone else: the number's messages stay on Kit's file, the number is not Kit's.
    await live.director.clients.removeNumber.mutate({ clientId: kit.id, phone: `+${kit.digits}` });
    await createClient({ name: 'Kit’s successor', phone: `+${kit.digits}` });
    await expect.poll(() => stateOf(id), { timeout: 15_000 }).toBe('not_sent');
    expect((await rowOf(id)).reason).toMatch(/is no longer one of Kit Lowe's numbers/);
    expect(sendsWith(live, 'From us to Kit')).toHaveLength(0);
  });

  it('walls: a screened person gets NOT_FOUND on every path for that client, as for one that does not exist; a send whose author was walled does not go', async () => {
    const ivy = await clientWhoWrote('Ivy Jarvis');
    const { id } = await live.staff.chat.schedule.mutate({ clientId: ivy.id, body: 'Before the wall', sendAt: inSeconds(3600) });
    await live.director.access.screen.mutate({ clientId: ivy.id, userId: staffId, reason: 'conflict of interest' });

    const missing = await failureOf(live.staff.chat.cancelScheduled.mutate({ id: 2_000_000_000 }));
    for (const call of [
      () => live.staff.chat.schedule.mutate({ clientId: ivy.id, body: 'Through the wall', sendAt: inSeconds(60) }),
      () => live.staff.chat.scheduled.query({ clientId: ivy.id }),
      () => live.staff.chat.reschedule.mutate({ id, sendAt: inSeconds(60) }),
      () => live.staff.chat.editScheduled.mutate({ id, body: 'Edited through the wall' }),
      () => live.staff.chat.cancelScheduled.mutate({ id }),
    ]) {
      const refused = await failureOf(call());
      expect(refused.data?.code).toBe('NOT_FOUND');
      expect(refused.message).not.toMatch(/Ivy|Jarvis/);
    }
    // Its own id answers exactly as an id that does not exist.
    expect((await failureOf(live.staff.chat.cancelScheduled.mutate({ id }))).message).toBe(missing.message);
    expect((await live.staff.chat.scheduled.query()).map((s) => s.id)).not.toContain(id);
    expect(await rowOf(id)).toMatchObject({ state: 'scheduled', body: 'Before the wall' });

    // The director brings it forward; at its time its author may no longer send there.
    await live.director.chat.reschedule.mutate({ id, sendAt: inSeconds(0) });
    await expect.poll(() => stateOf(id), { timeout: 15_000 }).toBe('not_sent');
    const reason = (await rowOf(id)).reason!;
    expect(reason).toBe('Not sent: whoever scheduled it may no longer send to this conversation.');
    expect(sendsWith(live, 'Before the wall')).toHaveLength(0);
    // Its author is told, but sees it only while they may see the conversation again.
    expect(await sql(live.server.databaseUrl, 'SELECT user_id FROM notifications WHERE scheduled_send_id = $1', [id])).toEqual([
      { user_id: staffId },
    ]);
    expect((await live.staff.notifications.list.query()).items.some((n) => n.scheduledSend?.id === id)).toBe(false);
    await live.director.access.unscreen.mutate({ clientId: ivy.id, userId: staffId });
    expect((await live.staff.notifications.list.query()).items.some((n) => n.scheduledSend?.id === id)).toBe(true);
  });

  it('the firm’s automatic reply is sent by the same queue as the firm’s own text; to a number that opted out it is not sent', async () => {
    const jon = await clientWhoWrote('Jon Kemp');
    const [reply] = await sql<{ id: number }>(
      live.server.databaseUrl,
      `INSERT INTO scheduled_sends (kind, to_digits, client_id, body, send_at) VALUES ('auto_reply', $1, $2, 'We are closed: back at 9.', now()) RETURNING id`,
      [jon.digits, jon.id],
    );
    await expect.poll(() => outcomeOf(live.server.databaseUrl, reply!.id), { timeout: 15_000 }).toBe('sent:sent');
    const record = (await Communication.findByPk((await rowOf(reply!.id)).communication_id!))!;
    expect(record).toMatchObject({ body: 'We are closed: back at 9.', sentBy: null, clientId: jon.id, metadata: { auto_reply: true } });

    expect((await live.sim.sendInbound(jon.digits, 'STOP')).status).toBe(200);
    const [refused] = await sql<{ id: number }>(
      live.server.databaseUrl,
      `INSERT INTO scheduled_sends (kind, to_digits, client_id, body, send_at) VALUES ('auto_reply', $1, $2, 'Closed again.', now()) RETURNING id`,
      [jon.digits, jon.id],
    );
    await expect.poll(() => stateOf(refused!.id), { timeout: 15_000 }).toBe('not_sent');
    expect(sendsWith(live, 'Closed again.')).toHaveLength(0);
    const told = await sql(live.server.databaseUrl, 'SELECT 1 FROM notifications WHERE scheduled_send_id = $1', [refused!.id]);
    expect(told).toEqual([]);
  });
});

async function cookieOf(baseUrl: string, email: string, password: string): Promise<string> {
  const { client, jar } = createHttpClient(baseUrl);
  await client.auth.signIn.mutate({ email, password });
  return [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
}

describe('across instances, a stop and a crash', () => {
  // This process's server only takes requests; the instances that send are processes of their own.
  let live: TLiveSetup;
  let env: Record<string, string>;
  let client: { id: number; digits: string };
  let instances: TServerProcess[] = [];
  const rowsOf = (ids: number[]) =>
    sql<TRow>(live.server.databaseUrl, 'SELECT * FROM scheduled_sends WHERE id = ANY($1) ORDER BY id', [ids]);
  const stateOf = async (id: number) => (await rowsOf([id]))[0]!.state;
  const schedule = (body: string, sendAt: Date) => live.staff.chat.schedule.mutate({ clientId: client.id, body, sendAt });

  beforeAll(async () => {
    live = await startLiveSetup({}, { scheduledSends: false });
    env = {
      DATABASE_URL: live.server.requestDatabaseUrl,
      DATABASE_OWNER_URL: live.server.databaseUrl,
      MESSAGING_API_KEY: SIM_API_KEY,
      MESSAGING_PROVIDER_URL: live.sim.url,
      MESSAGING_WEBHOOK_SECRET: WEBHOOK_SECRET,
      SESSION_SECRET: 'test-session-secret-0123456789abcdef',
    };
    const digits = nextDigits();
    client = { id: (await createClient({ name: 'Kay Lowe', phone: `+${digits}` })).id, digits };
    expect((await live.sim.sendInbound(digits, 'Hello')).status).toBe(200);
  });
  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.crash()));
    await live?.stop();
  });

  it('two instances on one database, both taking the same due rows up at the same moment: each is sent exactly once', async () => {
    instances = await Promise.all([startServerProcess(env), startServerProcess(env)]);
    const ids: number[] = [];
    for (let i = 0; i < 12; i++) ids.push((await schedule(`Both instances ${i}.`, inSeconds(3600))).id);

    // While the table is locked, each instance's next lease waits for it (it cannot even begin); the
    // rows are made due, and both leases are let go together.
    const lock = new pg.Client({ connectionString: live.server.databaseUrl });
    await lock.connect();
    try {
      await lock.query('BEGIN');
      await lock.query('LOCK TABLE scheduled_sends IN EXCLUSIVE MODE');
      await lock.query('UPDATE scheduled_sends SET send_at = now() WHERE id = ANY($1)', [ids]);
      const waitingLeases = async () =>
        (
          await sql<{ n: number }>(
            live.server.databaseUrl,
            `SELECT count(*)::int AS n FROM pg_stat_activity
             WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'
               AND query LIKE '%UPDATE scheduled_sends s SET leased_until%'`,
          )
        )[0]!.n;
      await expect.poll(waitingLeases, { timeout: 10_000, interval: 20 }).toBe(2);
      await lock.query('COMMIT');
    } finally {
      await lock.end();
    }

    await expect
      .poll(() => Promise.all(ids.map((id) => outcomeOf(live.server.databaseUrl, id))), { timeout: 20_000 })
      .toEqual(ids.map(() => 'sent:sent'));
    const records = await sql<{ scheduled: string; n: number }>(
      live.server.databaseUrl,
      `SELECT metadata->>'scheduled_send_id' AS scheduled, count(*)::int AS n FROM communications
       WHERE metadata->>'scheduled_send_id' = ANY($1) GROUP BY 1 ORDER BY 1`,
      [ids.map(String)],
    );
    expect(records.map((r) => [Number(r.scheduled), r.n]).sort((x, y) => x[0]! - y[0]!)).toEqual(ids.map((id) => [id, 1]));
    for (let i = 0; i < 12; i++) expect(sendsWith(live, `Both instances ${i}.`), `send ${i}`).toHaveLength(1);
  }, 180_000);

  it('a send due while every server is stopped goes once when one starts again', async () => {
    expect(await Promise.all(instances.map((instance) => instance.stop()))).toEqual(instances.map(() => 0));
    instances = [];
    const { id } = await schedule('Due while stopped.', inSeconds(1));
    await expect
      .poll(
        async () =>
          (
            await sql<{ due: boolean }>(live.server.databaseUrl, 'SELECT send_at < now() AS due FROM scheduled_sends WHERE id = $1', [id])
          )[0]!.due,
      )
      .toBe(true);
    expect(await stateOf(id)).toBe('scheduled');
    expect(sendsWith(live, 'Due while stopped.')).toHaveLength(0);

    instances = [await startServerProcess(env)];
    await expect.poll(() => outcomeOf(live.server.databaseUrl, id), { timeout: 15_000 }).toBe('sent:sent');
    expect(sendsWith(live, 'Due while stopped.')).toHaveLength(1);
  }, 180_000);

  it('a server killed while the provider holds its answer does not send it again after a restart; its record is of unknown outcome', async () => {
    live.sim.configure({ answerDelayMs: 60_000 });
    const { id } = await schedule('Cut off mid-send.', inSeconds(0));
    await withinSeconds(
      20,
      live.sim.waitForRequest((r) => r.path === '/messages' && JSON.stringify(r.body).includes('Cut off mid-send.')),
    );
    await instances[0]!.crash();
    instances = [];
    live.sim.configure({ answerDelayMs: 0 });

    // The record and the end of the wait were committed together before the provider was called.
    const [row] = await rowsOf([id]);
    expect(row).toMatchObject({ state: 'sent', attempts: 1 });
    const record = (await Communication.findByPk(row!.communication_id!))!;
    expect(record.status).toBe('pending');
    // As if the crashed send's lease on its record had run out meanwhile.
    await sql(live.server.databaseUrl, `UPDATE communications SET updated_at = now() - interval '3 minutes' WHERE id = $1`, [record.id]);

    instances = [await startServerProcess(env)];
    // Queued behind it: once this one has gone, the restarted worker has been past the cut-off one.
    const marker = await schedule('After the crash.', inSeconds(0));
    await expect.poll(() => outcomeOf(live.server.databaseUrl, marker.id), { timeout: 15_000 }).toBe('sent:sent');
    expect(sendsWith(live, 'Cut off mid-send.')).toHaveLength(1);
    expect(await rowsOf([id])).toEqual([match.objectContaining({ state: 'sent', communication_id: record.id, attempts: 1 })]);
    await record.reload();
    expect(record.status).toBe('pending');
    expect(record.metadata.outcome).toBe('unknown');
    const copies = await sql(live.server.databaseUrl, `SELECT id FROM communications WHERE metadata->>'scheduled_send_id' = $1`, [
      String(id),
    ]);
    expect(copies).toHaveLength(1);
  }, 180_000);
});
