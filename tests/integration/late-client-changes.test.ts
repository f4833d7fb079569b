import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Communication } from '../../server/core/db/models/index';
import { openLiveStream } from '../support/live-stream';
import { startLiveSetup, type TLiveSetup } from '../support/live-setup';
import { cloudPayload, postWebhook, sql, textMessage } from '../support/webhook';

// The provider retries posts the app did not take, for days, so a client's changes can arrive out
// of order: each is weighed by its own time, and an older one delivered late never undoes a newer one.
// Signed payloads posted directly, later change first, keep each case deterministic.

const CLIENT = '447700900123';
const T0 = 1763700000;
const iso = (seconds: number) => new Date(seconds * 1000).toISOString().replace('.000Z', '+00:00');

let live: TLiveSetup;
beforeAll(async () => {
  live = await startLiveSetup();
});
afterAll(() => live?.stop());
beforeEach(async () => {
  await sql(live.server.databaseUrl, 'TRUNCATE scheduled_sends, communications, chat_receipts CASCADE');
  await deliver(textMessage('wamid.orig', CLIENT, 'original', String(T0)));
});

const deliver = async (...messages: unknown[]) => {
  const res = await postWebhook(live.server.url, cloudPayload({ contacts: [{ wa_id: CLIENT, profile: { name: 'Amelia' } }], messages }));
  expect(res.status).toBe(200);
};
const record = async () => (await Communication.findOne({ where: { metadata: { chat_msg_id: 'wamid.orig' } } }))!;
const reaction = (id: string, at: number, emoji: string) => ({
  from: CLIENT,
  id,
  timestamp: String(at),
  type: 'reaction',
  reaction: { message_id: 'wamid.orig', emoji },
});
/** Both edits in their order, whichever was delivered first: each with the text it replaced. */
const BOTH_EDITS = [
  { id: 'wamid.e1', body: 'original', at: iso(T0 + 10) },
  { id: 'wamid.e2', body: 'first edit', at: iso(T0 + 20) },
];
const edit = (id: string, at: number, body: string) => ({
  from: CLIENT,
  id,
  timestamp: String(at),
  type: 'edit',
  edit: { original_message_id: 'wamid.orig', message: { type: 'text', text: { body } } },
});

describe('a late reaction never undoes a newer one', () => {
  it('a removed reaction delivered before the reaction it removes stays removed', async () => {
    await deliver(reaction('wamid.r-off', T0 + 20, ''));
    await deliver(reaction('wamid.r-on', T0 + 10, '👍'));
    expect((await record()).metadata.reactions).toEqual([]);

    // A newer reaction still applies over the removal; a same-second change goes to the one delivered last.
    await deliver(reaction('wamid.r-heart', T0 + 30, '❤️'));
    await deliver(reaction('wamid.r-late', T0 + 25, '😂'));
    expect((await record()).metadata.reactions).toEqual([{ from: CLIENT, emoji: '❤️', at: iso(T0 + 30) }]);
    await deliver(reaction('wamid.r-tie', T0 + 30, '🙏'));
    expect((await record()).metadata.reactions).toEqual([{ from: CLIENT, emoji: '🙏', at: iso(T0 + 30) }]);
  });

  it('a replaced reaction delivered late does not come back', async () => {
    await deliver(reaction('wamid.r2', T0 + 20, '❤️'));
    await deliver(reaction('wamid.r1', T0 + 10, '👍'));
    expect((await record()).metadata.reactions).toEqual([{ from: CLIENT, emoji: '❤️', at: iso(T0 + 20) }]);
  });
});

describe('a late edit never replaces a newer text', () => {
  it('an older edit goes into the history at its place, the body stays the newest, live views see it', async () => {
    await deliver(edit('wamid.e2', T0 + 20, 'second edit'));
    const stream = await openLiveStream(live.server.url, live.staffCookie);
    try {
      await deliver(edit('wamid.e1', T0 + 10, 'first edit'));
      const after = await record();
      expect(after.body).toBe('second edit');
      expect(after.metadata.edits).toEqual(BOTH_EDITS);
      // The record was announced with its new history.
      await stream.until((frames) => frames.some((f) => f.data?.includes('first edit')));
    } finally {
      stream.close();
    }
    // Delivered again, either edit changes nothing.
    await deliver(edit('wamid.e1', T0 + 10, 'first edit'));
    await deliver(edit('wamid.e2', T0 + 20, 'second edit'));
    expect((await record()).metadata.edits).toHaveLength(2);
    expect((await record()).body).toBe('second edit');
    // The thread shows the same.
    const thread = await live.staff.inbox.thread.query({ phone: CLIENT });
    expect(thread.items.at(-1)).toMatchObject({ body: 'second edit', metadata: { edits: BOTH_EDITS } });
  });
});

describe('a deleted message keeps the text the firm had', () => {
  const revoke = (at: number) => ({
    from: CLIENT,
    id: 'wamid.del',
    timestamp: String(at),
    type: 'revoke',
    revoke: { original_message_id: 'wamid.orig' },
  });

  it('an edit made before the deletion and delivered after it never becomes the body', async () => {
    await deliver(revoke(T0 + 20));
    await deliver(edit('wamid.e1', T0 + 10, 'edited'));
    const after = await record();
    expect(after.body).toBe('original');
    expect(after.metadata.revoked_at).toBe(iso(T0 + 20));
    expect(after.metadata.edits).toBeUndefined();
  });

  it('an older edit of an edited, deleted message is kept in the history only', async () => {
    await deliver(edit('wamid.e2', T0 + 20, 'second edit'));
    await deliver(revoke(T0 + 30));
    await deliver(edit('wamid.e1', T0 + 10, 'first edit'));
    const after = await record();
    expect(after.body).toBe('second edit');
    expect(after.metadata.edits).toEqual(BOTH_EDITS);
  });
});
