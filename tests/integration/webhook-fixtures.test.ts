import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Communication } from '../../server/core/db/models/index';
import { startTestServer, type TTestServer } from '../support/test-server';
import { postWebhook, sql, WEBHOOK_SECRET } from '../support/webhook';

// Real payloads a public WhatsApp library keeps as test data (tests/fixtures/peer-webhooks: MIT, see its README).
const FIXTURE_DIR = path.resolve(import.meta.dirname, '../fixtures/peer-webhooks');

type TExpected = Record<string, number>;
const NOTHING = { received: 0, stored: 0 };
const IGNORED_MESSAGE = { received: 1, stored: 0 };
const TEXT = { received: 1, stored: 1 };

// Status cases run against an outbound record with the same id, left at "delivered".
const STATUS_CASES: Record<string, { statuses: number; updated: number; finalStatus: string }> = {
  sent: { statuses: 1, updated: 0, finalStatus: 'delivered' },
  delivered: { statuses: 1, updated: 0, finalStatus: 'delivered' },
  read: { statuses: 1, updated: 1, finalStatus: 'read' },
  played: { statuses: 1, updated: 0, finalStatus: 'delivered' },
  failed: { statuses: 1, updated: 1, finalStatus: 'failed' },
  with_tracker: { statuses: 1, updated: 0, finalStatus: 'delivered' },
  group: { statuses: 1, updated: 0, finalStatus: 'delivered' },
};

// Every kind of message (server/webhook/README.md "The inbound webhook"): stored kinds make a record; reactions, edits and deletions change
// one (none exists here, so nothing changes); orders, system notices, unsupported types, calls and
// flows are counted only. The corpus's echo with a placeholder recipient ("<WHATSAPP_USER_PHONE_NUMBER>")
// and its deletion notice from a placeholder sender cannot be anyone's conversation: counted, not stored.
const STORED_MESSAGES = new Set([
  'text',
  'reply',
  'forwarded',
  'forwarded_many_times',
  'referral',
  'image',
  'media_with_url',
  'video',
  'document',
  'audio',
  'voice',
  'static_sticker',
  'animated_sticker',
  'current_location',
  'chosen_location',
  'contacts',
]);

function expectedFor(file: string, name: string): TExpected {
  if (file === 'message.json') return STORED_MESSAGES.has(name) ? TEXT : IGNORED_MESSAGE;
  if (file === 'callback_button.json' || file === 'callback_selection.json') return TEXT;
  if (file === 'message_status.json') {
    const { finalStatus: _f, ...counts } = STATUS_CASES[name]!;
    return counts;
  }
  if (file === 'call_status.json') return { statuses: 1, updated: 0 };
  if (
    [
      'call_permission_update.json',
      'deleted_message.json',
      'edited_message.json',
      'flow_completion.json',
      'outgoing_message.json',
      'system.json',
    ].includes(file)
  ) {
    return IGNORED_MESSAGE;
  }
  return NOTHING; // account, call connect/terminate, templates, marketing preferences
}

const cases = readdirSync(FIXTURE_DIR)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .flatMap((file) =>
    Object.entries(JSON.parse(readFileSync(path.join(FIXTURE_DIR, file), 'utf8')) as Record<string, unknown>).map(([name, payload]) => ({
      file,
      name,
      payload,
    })),
  );

let server: TTestServer;
beforeAll(async () => {
  server = await startTestServer({ MESSAGING_WEBHOOK_SECRET: WEBHOOK_SECRET });
});
afterAll(() => server?.stop());

describe('real provider payloads', () => {
  it('the fixtures are present', () => {
    expect(cases.length).toBeGreaterThan(60);
  });

  it.each(cases.map((c) => [`${c.file} › ${c.name}`, c] as const))('%s answers 200 with exact counts', async (_label, c) => {
    await sql(server.databaseUrl, 'TRUNCATE scheduled_sends, communications, chat_receipts CASCADE');
    const status = STATUS_CASES[c.name];
    const record =
      c.file === 'message_status.json'
        ? await Communication.create({
            type: 'chat',
            direction: 'outbound',
            status: 'delivered',
            body: 'hello',
            clientId: null,
            peerPhone: '972987654321',
            metadata: { chat_msg_id: 'wamid.xyzxyz' }, // the id the status fixtures report (the group one uses another)
          })
        : null;
    const res = await postWebhook(server.url, c.payload);
    expect(res).toEqual({ status: 200, json: { ok: true, ...expectedFor(c.file, c.name) } });
    if (record && status) expect((await Communication.findByPk(record.id))?.status).toBe(status.finalStatus);
  });
});
