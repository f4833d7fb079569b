import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Communication } from '../../server/core/db/models/index';
import { createClient } from '../../server/crm/clients';
import { getThread } from '../../server/inbox/thread-items';
import { startTestServer, type TTestServer } from '../support/test-server';
import { cloudPayload, postWebhook, sql, textMessage, WEBHOOK_SECRET } from '../support/webhook';
import { UNWALLED_READER } from '../support/readers';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/peer-webhooks');
const corpus = (file: string, name: string) =>
  (JSON.parse(readFileSync(path.join(FIXTURES, file), 'utf8')) as Record<string, unknown>)[name];
const CLIENT = '447700900123';
const OTHER = '447700900999';

let server: TTestServer;
beforeAll(async () => {
  // Demo mode (no provider key): files are recorded failed with the reason at once, nothing queued
  // (live mode records them pending for the queue: tests/integration/media.test.ts).
  server = await startTestServer({ MESSAGING_WEBHOOK_SECRET: WEBHOOK_SECRET });
  await createClient({ name: 'Amelia Hart', phone: `+${CLIENT}` });
});
afterAll(() => server?.stop());
beforeEach(() => sql(server.databaseUrl, 'TRUNCATE scheduled_sends, communications, chat_receipts CASCADE'));

const byMsgId = async (id: string) => (await Communication.findOne({ where: { metadata: { chat_msg_id: id } } }))!;
const deliver = (...messages: unknown[]) =>
  postWebhook(server.url, cloudPayload({ contacts: [{ wa_id: CLIENT, profile: { name: 'Amelia' } }], messages }));

describe('every kind of message, stored', () => {
  it('every stored kind of the real corpus is on the record as the thread shows it, with its file', async () => {
    for (const name of ['image', 'document', 'voice', 'chosen_location', 'contacts']) {
      const res = await postWebhook(server.url, corpus('message.json', name));
      expect(res.json, name).toMatchObject({ received: 1, stored: 1 });
      await sql(
        server.databaseUrl,
        `UPDATE communications SET metadata = jsonb_set(metadata, '{chat_msg_id}', to_jsonb('${name}'::text)) WHERE metadata->>'chat_msg_id' = 'wamid.xyzxyz'`,
      );
    }
    const files = await sql<{
      kind: string;
      state: string;
      error: string;
      provider_media_id: string;
      file_name: string | null;
      mime_type: string;
      attempts: number;
    }>(server.databaseUrl, 'SELECT kind, state, error, provider_media_id, file_name, mime_type, attempts FROM attachments ORDER BY id');
    const demo = { state: 'failed', error: 'Files cannot be downloaded in demo mode (MESSAGING_API_KEY is not set).', attempts: 0 };
    expect(files).toEqual([
      { kind: 'image', provider_media_id: '65463453', file_name: null, mime_type: 'image/jpeg', ...demo },
      { kind: 'document', provider_media_id: '1234567890987654321', file_name: 'filename.pdf', mime_type: 'application/pdf', ...demo },
      { kind: 'audio', provider_media_id: '1234567890987654321', file_name: null, mime_type: 'audio/ogg; codecs=opus', ...demo },
    ]);
    const thread = await getThread(UNWALLED_READER, { phone: '972987654321' });
    expect(thread.items.map((i) => [i.metadata.kind ?? 'text', i.body, i.attachments.map((a) => `${a.kind}:${a.state}`)])).toEqual([
      ['image', '', ['image:failed']],
      ['document', 'caption', ['document:failed']],
      ['audio', '', ['audio:failed']],
      ['location', 'Location: Facebook HQ, 1 Hacker Way, Menlo Park, CA 94025 (37.4611978, -122.2164385)', []],
      ['contacts', 'Contacts:\nChandler Bing: +1 555-555-5555\nMonica: +1 666-666-6666\nRachel Green: +1 777-777-7777', []],
    ]);
    expect(thread.items[2]?.metadata.voice).toBe(true);
  });

  it('a retried media delivery stores neither the message nor its file twice', async () => {
    const photo = {
      from: CLIENT,
      id: 'wamid.photo1',
      timestamp: '1763700000',
      type: 'image',
      image: { id: '999', mime_type: 'image/png', caption: 'the letter' },
    };
    expect((await deliver(photo)).json).toMatchObject({ received: 1, stored: 1 });
    expect((await deliver(photo)).json).toMatchObject({ received: 1, stored: 0 });
    expect(await sql(server.databaseUrl, 'SELECT count(*)::int AS n FROM attachments')).toEqual([{ n: 1 }]);
    const record = await byMsgId('wamid.photo1');
    expect(record.clientId).not.toBeNull();
    expect(record.body).toBe('the letter');
  });

  it('a button reply keeps the chosen title and links the message it answers', async () => {
    await deliver({
      from: CLIENT,
      id: 'wamid.btn',
      timestamp: '1763700000',
      type: 'button',
      context: { from: '442079460000', id: 'wamid.ours' },
      button: { payload: 'yes', text: 'Yes, Tuesday works' },
    });
    const record = await byMsgId('wamid.btn');
    expect(record.body).toBe('Yes, Tuesday works');
    expect(record.metadata).toMatchObject({ kind: 'button', context_id: 'wamid.ours' });
  });
});

describe('reactions, edits and deletions change the record they refer to', () => {
  beforeEach(async () => {
    await deliver(textMessage('wamid.orig', CLIENT, 'See you at 10'));
  });

  it('a reaction is added, replaced by the same number, and removed by an empty emoji; another number cannot react here', async () => {
    const react = (emoji: string | undefined, from = CLIENT, id = `wamid.r${Math.random()}`) =>
      postWebhook(
        server.url,
        cloudPayload({
          messages: [
            {
              from,
              id,
              timestamp: '1763700100',
              type: 'reaction',
              reaction: { message_id: 'wamid.orig', ...(emoji === undefined ? {} : { emoji }) },
            },
          ],
        }),
      );
    expect((await react('👍')).json).toMatchObject({ received: 1, stored: 0 });
    expect((await byMsgId('wamid.orig')).metadata.reactions).toEqual([{ from: CLIENT, emoji: '👍', at: '2025-11-21T04:41:40+00:00' }]);
    await react('❤️');
    expect((await byMsgId('wamid.orig')).metadata.reactions?.map((r) => r.emoji)).toEqual(['❤️']);
    await react('😂', OTHER);
    expect((await byMsgId('wamid.orig')).metadata.reactions?.map((r) => r.emoji)).toEqual(['❤️']);
    await react(undefined);
    expect((await byMsgId('wamid.orig')).metadata.reactions).toEqual([]);
    expect(await sql(server.databaseUrl, "SELECT count(*)::int AS n FROM communications WHERE type = 'chat'")).toEqual([{ n: 1 }]);
  });

  it('an edit replaces the text and keeps the earlier one; a retried edit is applied once; another number cannot edit it', async () => {
    const edit = {
      from: CLIENT,
      id: 'wamid.e1',
      timestamp: '1763700200',
      type: 'edit',
      edit: { original_message_id: 'wamid.orig', message: { type: 'text', text: { body: 'See you at 11' } } },
    };
    expect((await deliver(edit)).json).toMatchObject({ received: 1, stored: 0 });
    await deliver(edit);
    await deliver({ ...edit, from: OTHER, id: 'wamid.e2', edit: { ...edit.edit, message: { type: 'text', text: { body: 'hijacked' } } } });
    const record = await byMsgId('wamid.orig');
    expect(record.body).toBe('See you at 11');
    expect(record.metadata.edits).toEqual([{ id: 'wamid.e1', body: 'See you at 10', at: '2025-11-21T04:43:20+00:00' }]);
  });

  it('a deletion marks the record and keeps its content for the firm', async () => {
    await deliver({
      from: CLIENT,
      id: 'wamid.del',
      timestamp: '1763700300',
      type: 'revoke',
      revoke: { original_message_id: 'wamid.orig' },
    });
    const record = await byMsgId('wamid.orig');
    expect(record.body).toBe('See you at 10');
    expect(record.metadata.revoked_at).toBe('2025-11-21T04:45:00+00:00');
  });

  it("an echo from the firm's phone is an outbound record, sent, on the client's file; its own edit applies to it", async () => {
    const echo = (item: Record<string, unknown>) =>
      postWebhook(server.url, {
        entry: [{ changes: [{ field: 'smb_message_echoes', value: { messaging_product: 'whatsapp', message_echoes: [item] } }] }],
      });
    expect(
      (
        await echo({
          from: '442079460000',
          to: CLIENT,
          id: 'wamid.echo',
          timestamp: '1763700400',
          type: 'text',
          text: { body: 'Called you from the office' },
        })
      ).json,
    ).toEqual({ ok: true, received: 1, stored: 1 });
    await echo({
      from: '442079460000',
      to: CLIENT,
      id: 'wamid.echo-edit',
      timestamp: '1763700500',
      type: 'edit',
      edit: { original_message_id: 'wamid.echo', message: { type: 'text', text: { body: 'Called you from the office (twice)' } } },
    });
    const record = await byMsgId('wamid.echo');
    expect(record).toMatchObject({ direction: 'outbound', status: 'sent', body: 'Called you from the office (twice)' });
    expect(record.clientId).toBe((await byMsgId('wamid.orig')).clientId);
    expect(record.metadata.echo).toBe(true);
    // The client cannot edit the firm's message (an inbound edit only applies to inbound records).
    await deliver({
      from: CLIENT,
      id: 'wamid.e3',
      timestamp: '1763700600',
      type: 'edit',
      edit: { original_message_id: 'wamid.echo', message: { type: 'text', text: { body: 'forged' } } },
    });
    expect((await byMsgId('wamid.echo')).body).toBe('Called you from the office (twice)');
  });
});
