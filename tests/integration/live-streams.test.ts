import net from 'node:net';
import superjson, { type SuperJSONResult } from 'superjson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession, SESSION_COOKIE } from '../../server/auth/sessions';
import { LiveStreams, type TChange } from '../../server/live/live-streams';
import { createLogger } from '../../server/core/logger';
import { createClient } from '../../server/crm/clients';
import { createUser } from '../../server/auth/users';
import { isConnected, openLiveStream, type TFrame } from '../support/live-stream';
import { captureLogLines } from '../support/log-capture';
import { sql } from '../support/sql';
import { startTestServer, type TTestServer } from '../support/test-server';
import { match } from '../support/matchers';

// inbox.onChange for many open browsers (server/decisions/0006-hand-made-live-fan-out.md): one fan-out writes each change's bytes to every
// stream; a stream that cannot keep up is told to resync and dropped instead of holding memory or
// anyone else; idle streams get heartbeats; a reconnect starts with a resync; each person gets only
// the records the visibility rule lets them see. Raw HTTP here, so the wire itself is checked.

const SESSION_SECRET = 'live-streams-session-secret-0123456789';
const HEARTBEAT_MS = 150;
const MAX_BUFFERED_BYTES = 64 * 1024;
const MAX_PER_USER = 6;

const { lines, destination } = captureLogLines();

let server: TTestServer;
let staffCookie: string;
let directorCookie: string;
let staffId = 0;
/** How often the fan-out asked the walls; while `holdWalls` is set, their answer waits for it. */
let wallQuestions = 0;
let holdWalls: Promise<void> | null = null;

beforeAll(async () => {
  server = await startTestServer({ SESSION_SECRET, LOG_LEVEL: 'info' }, createLogger('info', destination), {
    // The test's rule: staff see only unlinked numbers' records, directors everything.
    liveStreams: {
      heartbeatMs: HEARTBEAT_MS,
      maxBufferedBytes: MAX_BUFFERED_BYTES,
      // Time for a dropped reader to take its last frames: the test reads them only after its checks, which a busy machine slows.
      dropGraceMs: 30_000,
      maxStreamsPerUser: MAX_PER_USER,
      findHidden: async (viewerIds, recordIds) => {
        wallQuestions += 1;
        if (holdWalls) await holdWalls;
        const linked = await sql<{ id: number }>(
          server.databaseUrl,
          'SELECT id FROM communications WHERE id = ANY($1) AND client_id IS NOT NULL',
          [recordIds],
        );
        const staff = viewerIds.filter((id) => id === staffId);
        return new Map(staff.map((id) => [id, new Set(linked.map((row) => row.id))]));
      },
    },
  });
  const staff = await createUser({ email: 'sam@firm.test', name: 'Sam Staff', role: 'staff', password: 'staff-password' });
  staffId = staff.id;
  const director = await createUser({ email: 'dee@firm.test', name: 'Dee Director', role: 'director', password: 'director-password' });
  staffCookie = `${SESSION_COOKIE}=${(await createSession(staff.id, SESSION_SECRET, new Date())).token}`;
  directorCookie = `${SESSION_COOKIE}=${(await createSession(director.id, SESSION_SECRET, new Date())).token}`;
}, 120_000);
afterAll(() => server?.stop());

const openStream = (cookie: string | null, options: Parameters<typeof openLiveStream>[2] = {}) =>
  openLiveStream(server.url, cookie, options);

/** An SSE frame's data: superjson's wire form, as tRPC writes it. */
const wireOf = (frame: TFrame) => JSON.parse(frame.data!) as SuperJSONResult;
const changeOf = (frame: TFrame) => superjson.deserialize<{ items?: { id: number; body: string | null }[]; resync?: true }>(wireOf(frame));
const isChange = (frame: TFrame) => frame.event === undefined && frame.data !== undefined;

/** `count` unlinked chat records whose bodies are `bodyChars` long; their ids. */
async function insertRecords(count: number, bodyChars: number, clientId: number | null = null): Promise<number[]> {
  const rows = await sql<{ id: number }>(
    server.databaseUrl,
    `INSERT INTO communications (type, direction, status, body, peer_phone, client_id, metadata)
     SELECT 'chat', 'outbound', 'sent', repeat('x', $2::int), '447700900999', $3::int, '{}'::jsonb FROM generate_series(1, $1::int)
     RETURNING id`,
    [count, bodyChars, clientId],
  );
  return rows.map((r) => r.id);
}

describe('live streams', () => {
  it("open with tRPC's connected event, an id, and the reconnect-after-silence the heartbeats keep from firing", async () => {
    const stream = await openStream(staffCookie);
    try {
      expect(stream.res.statusCode).toBe(200);
      expect(stream.res.headers['content-type']).toBe('text/event-stream');
      expect(stream.res.headers['x-accel-buffering']).toBe('no');
      const connected = await stream.waitFor(isConnected);
      expect(connected.id).toMatch(/^\d+$/);
      expect(JSON.parse(connected.data!)).toEqual({ reconnectAfterInactivityMs: HEARTBEAT_MS * 3 });
    } finally {
      stream.close();
    }
  });

  it('an idle stream gets a heartbeat every interval, so proxies keep it open', async () => {
    const stream = await openStream(staffCookie);
    try {
      await stream.waitFor(isConnected);
      const started = performance.now();
      const pings = (frames: TFrame[]) => frames.filter((f) => f.event === 'ping').length;
      await stream.until((frames) => pings(frames) >= 4, 5_000);
      // Four pings take at least three intervals (the first may come at once): a ping per interval, not a flood.
      expect(performance.now() - started).toBeGreaterThanOrEqual(HEARTBEAT_MS * 3 - 20);
      expect(stream.frames.filter(isChange)).toEqual([]);
    } finally {
      stream.close();
    }
  });

  it('every way tRPC and browsers say "reconnecting" starts the stream with a resync; a first connection does not', async () => {
    const input = (json: unknown) => `?input=${encodeURIComponent(JSON.stringify(json))}`;
    const resumed = await Promise.all([
      openStream(staffCookie, { headers: { 'last-event-id': '41' } }), // a browser reconnecting by itself
      openStream(staffCookie, { query: input(superjson.serialize({ lastEventId: '41' })) }), // tRPC's link
      openStream(staffCookie, { query: '?lastEventId=7' }),
      openStream(staffCookie, { query: `${input({ json: { lastEventId: '9' } })}&input=x` }), // repeated: the first, as tRPC reads it
    ]);
    // No input at all, as tRPC's link sends it (superjson's undefined), or left empty.
    const fresh = await Promise.all([
      openStream(directorCookie),
      openStream(directorCookie, { query: input(superjson.serialize(undefined)) }),
      openStream(directorCookie, { query: '?input=' }),
    ]);
    try {
      for (const stream of resumed) expect(changeOf(await stream.waitFor(isChange))).toEqual({ resync: true });
      await Promise.all(fresh.map((stream) => stream.waitFor(isConnected)));
      await new Promise((r) => setTimeout(r, 300));
      for (const stream of fresh) expect(stream.frames.filter((f) => isChange(f) || f.event === 'serialized-error')).toEqual([]);
      for (const stream of [...resumed, ...fresh]) expect(stream.frames.filter((f) => f.event === 'serialized-error')).toEqual([]);
    } finally {
      for (const stream of [...resumed, ...fresh]) stream.close();
    }
  });

  it('another spelling of the path is refused, so every stream over HTTP is one the fan-out counts and bounds', async () => {
    await expect.poll(() => server.liveStreams.stats.streams).toBe(0); // the streams of earlier tests have closed
    const odd = await openStream(staffCookie, { path: '/trpc/inbox%2EonChange' });
    try {
      const refused = await odd.waitFor((f) => f.event === 'serialized-error');
      expect(JSON.stringify(superjson.deserialize(wireOf(refused)))).toContain('Open live updates at GET /trpc/inbox.onChange');
      expect(server.liveStreams.stats.streams).toBe(0);
    } finally {
      odd.close();
    }
    const badEscape = await fetch(`${server.url}/trpc/inbox.onChange%E0`, { headers: { cookie: staffCookie } });
    expect(badEscape.status).toBe(400);
    expect(await badEscape.json()).toEqual({
      error: { code: 'BAD_REQUEST', message: 'The procedure name in the address is not valid percent-encoding.' },
    });
  });

  it(`one person holds at most ${MAX_PER_USER} streams: one more is refused with a sentence, and a closed one makes room`, async () => {
    const user = await createUser({ email: 'tabs@firm.test', name: 'Many Tabs', role: 'staff', password: 'tabs-password' });
    const cookie = `${SESSION_COOKIE}=${(await createSession(user.id, SESSION_SECRET, new Date())).token}`;
    const open = await Promise.all(Array.from({ length: MAX_PER_USER }, () => openStream(cookie)));
    try {
      await Promise.all(open.map((stream) => stream.waitFor(isConnected)));
      const refused = await fetch(`${server.url}/trpc/inbox.onChange`, { headers: { cookie, accept: 'text/event-stream' } });
      expect(refused.status).toBe(429);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
        `You have ${MAX_PER_USER} live pages open already; close some tabs and reload this one.`,
      );
      const other = await openStream(staffCookie); // someone else is not affected
      await other.waitFor(isConnected);
      other.close();
      await expect.poll(() => server.liveStreams.stats.streams).toBe(MAX_PER_USER); // only this person's are open
      open.pop()!.close();
      await expect.poll(() => server.liveStreams.stats.streams).toBe(MAX_PER_USER - 1); // its place is free
      const again = await openStream(cookie);
      open.push(again);
      await again.waitFor(isConnected);
    } finally {
      for (const stream of open) stream.close();
    }
  });

  it('nobody signed in, or an input that does not parse: tRPC answers, with its own error event', async () => {
    const anonymous = await openStream(null);
    const badInput = await openStream(staffCookie, { query: '?input=%7Bnot-json' });
    try {
      const unauthorized = await anonymous.waitFor((f) => f.event === 'serialized-error');
      expect(JSON.stringify(superjson.deserialize(wireOf(unauthorized)))).toMatch(/UNAUTHORIZED/);
      const refused = await badInput.waitFor((f) => f.event === 'serialized-error');
      expect(JSON.stringify(superjson.deserialize(wireOf(refused)))).toMatch(/BAD_REQUEST|PARSE_ERROR/);
    } finally {
      anonymous.close();
      badInput.close();
    }
  });

  it('each person gets only what the visibility rule shows them; the same change keeps one id', async () => {
    const client = await createClient({ name: 'Walled Client', phone: '+44 7700 900555' });
    const staff = await openStream(staffCookie);
    const director = await openStream(directorCookie);
    try {
      await Promise.all([staff.waitFor(isConnected), director.waitFor(isConnected)]);
      const [linked] = await insertRecords(1, 10, client.id);
      const [unlinked] = await insertRecords(1, 10);
      await server.events.publish([linked!, unlinked!]);
      const toDirector = await director.waitFor((f) => isChange(f) && changeOf(f).items?.some((i) => i.id === unlinked) === true);
      const toStaff = await staff.waitFor((f) => isChange(f) && changeOf(f).items?.some((i) => i.id === unlinked) === true);
      expect(
        changeOf(toDirector)
          .items!.map((i) => i.id)
          .sort(),
      ).toEqual([linked, unlinked].sort());
      expect(changeOf(toStaff).items!.map((i) => i.id)).toEqual([unlinked]);
      expect(toStaff.id).toBe(toDirector.id);

      // A change with nothing staff may see sends them nothing at all.
      const seen = staff.frames.length;
      await server.events.publish([linked!]);
      await director.waitFor((f) => isChange(f) && f.id !== toDirector.id && changeOf(f).items?.[0]?.id === linked);
      await server.events.publish([unlinked!]);
      const next = await staff.waitFor(isChange, 5_000, seen);
      expect(changeOf(next).items!.map((i) => i.id)).toEqual([unlinked]);
    } finally {
      staff.close();
      director.close();
    }
  });

  it('a stream opened while the walls are being asked gets a resync, never records nobody checked for its person', async () => {
    const client = await createClient({ name: 'Late Client', phone: '+44 7700 900557' });
    const director = await openStream(directorCookie);
    let staff: Awaited<ReturnType<typeof openStream>> | undefined;
    let release = () => undefined as void;
    holdWalls = new Promise<void>((resolve) => (release = resolve));
    try {
      await director.waitFor(isConnected);
      const asked = wallQuestions;
      const [linked] = await insertRecords(1, 10, client.id);
      await server.events.publish([linked!]);
      await expect.poll(() => wallQuestions).toBeGreaterThan(asked); // the question about the director is out
      staff = await openStream(staffCookie);
      await staff.waitFor(isConnected);
      release();
      await director.waitFor((f) => isChange(f) && changeOf(f).items?.some((i) => i.id === linked) === true);
      expect(changeOf(await staff.waitFor(isChange))).toEqual({ resync: true });
    } finally {
      holdWalls = null;
      release();
      staff?.close();
      director.close();
    }
  });

  it('a subscriber that stops reading does not hold up one that reads: it is told to resync and dropped, and its reconnect resyncs', async () => {
    const fast = await openStream(directorCookie);
    const slow = await openStream(staffCookie, { read: false });
    try {
      await fast.waitFor(isConnected);
      const ids = await insertRecords(300, 3_000); // a frame of about 1 MB
      const droppedBefore = server.liveStreams.stats.dropped;
      const from = fast.frames.length;
      const isFull = (f: TFrame) => isChange(f) && changeOf(f).items?.length === 300;
      let published = 0;
      // Frames pile up for the slow stream (kernel buffers first, then this server's) until it is dropped;
      // the fast one gets every frame, each before the next is published.
      while (server.liveStreams.stats.dropped === droppedBefore && published < 80) {
        await server.events.publish(ids);
        published++;
        await fast.until((frames) => frames.slice(from).filter(isFull).length === published);
      }
      expect(server.liveStreams.stats.dropped).toBe(droppedBefore + 1);
      const fastChanges = fast.frames.slice(from).filter(isChange);
      expect(fastChanges).toHaveLength(published);
      expect(fastChanges.every((f) => changeOf(f).items!.length === 300)).toBe(true);
      expect(new Set(fastChanges.map((f) => f.id)).size).toBe(published);

      // The dropped browser reads what it was sent: some changes, then a resync, then the end (no tRPC `return`:
      // a browser reconnects by itself, where `return` would end its subscription).
      slow.read();
      await slow.ended;
      const slowChanges = slow.frames.filter(isChange);
      // What it got before the drop (all of it, when a heartbeat found it behind), then the resync.
      expect(slowChanges.slice(0, -1).every((f) => changeOf(f).items?.length === 300)).toBe(true);
      expect(slowChanges.length - 1).toBeLessThanOrEqual(published);
      expect(changeOf(slowChanges.at(-1)!)).toEqual({ resync: true });
      expect(slow.frames.some((f) => f.event === 'return')).toBe(false);

      // The fast one is still open and still hears changes.
      await server.events.publish([ids[0]!]);
      await fast.waitFor((f) => isChange(f) && changeOf(f).items?.length === 1, 5_000, from);

      const again = await openStream(staffCookie, { headers: { 'last-event-id': slowChanges.at(-1)!.id! } });
      try {
        expect(changeOf(await again.waitFor(isChange))).toEqual({ resync: true });
      } finally {
        again.close();
      }

      // The request log's line for the dropped stream says so, with the server's stream counts.
      const logged = () =>
        lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'request' && l.path === '/trpc/inbox.onChange');
      await expect
        .poll(logged)
        .toContainEqual(match.objectContaining({ status: 200, endedBy: 'behind', dropped: droppedBefore + 1, streams: match.any(Number) }));
      expect(JSON.stringify(lines)).not.toContain('xxxxxxxxxx'); // bodies never reach the log
    } finally {
      fast.close();
      slow.close();
    }
  }, 120_000);

  it('a caller inside the process (the procedure body) gets the same changes by the same rule, and stops with its signal', async () => {
    const client = await createClient({ name: 'Inside Client', phone: '+44 7700 900556' });
    const controller = new AbortController();
    const changes = server.liveStreams.changesFor({ id: 1, role: 'staff' }, controller.signal, true);
    expect((await changes.next()).value).toMatchObject({ change: { resync: true } });
    const [linked] = await insertRecords(1, 10, client.id);
    const [unlinked] = await insertRecords(1, 10);
    const next = changes.next();
    await server.events.publish([linked!, unlinked!]);
    // A change, or undefined once it has stopped (it returns nothing: checked below).
    const { value } = (await next) as IteratorResult<{ id: number; change: TChange }, undefined>;
    expect(value!.change).toMatchObject({ items: [{ id: unlinked }] });
    expect(value!.id).toBe(server.liveStreams.stats.sequence);
    const after = changes.next();
    controller.abort();
    expect(await after).toEqual({ done: true, value: undefined });

    // Closing the fan-out (shutdown) ends such callers too.
    const own = new LiveStreams(server.events, createLogger('silent'));
    own.start();
    const open = own.changesFor({ id: 1, role: 'staff' }, undefined);
    const pending = open.next();
    own.close();
    expect(await pending).toEqual({ done: true, value: undefined });
  });

  it('a browser gone while its session was looked up leaves no stream behind', async () => {
    await expect.poll(() => server.liveStreams.stats.streams).toBe(0); // the streams of earlier tests have closed
    const { port } = new URL(server.url);
    await Promise.all(
      Array.from(
        { length: 50 },
        () =>
          new Promise<void>((done) => {
            const socket = net.connect(Number(port), '127.0.0.1', () => {
              socket.write(
                `GET /trpc/inbox.onChange HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nCookie: ${staffCookie}\r\n\r\n`,
              );
              socket.destroy();
            });
            socket.once('close', () => done());
          }),
      ),
    );
    await expect.poll(() => server.liveStreams.stats.streams).toBe(0);
  });

  it('a stream that ends with its browser leaves the count, and says so in the request log', async () => {
    const stream = await openStream(staffCookie);
    await stream.waitFor(isConnected);
    await expect.poll(() => server.liveStreams.stats.streams).toBe(1); // this one alone
    stream.close();
    await stream.ended;
    await expect.poll(() => server.liveStreams.stats.streams).toBe(0);
    const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'request' && l.endedBy === 'client');
    expect(logged.length).toBeGreaterThan(0);
  });
});
