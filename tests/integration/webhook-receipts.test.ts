import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordProviderMessageId } from '../../server/messaging/receipts';
import { Communication } from '../../server/core/db/models/index';
import { createClient } from '../../server/crm/clients';
import { startTestServer, type TTestServer } from '../support/test-server';
import { cloudPayload, postWebhook, sql, statusItem } from '../support/webhook';
import { WEBHOOK_SECRET } from '../support/webhook';
import { match } from '../support/matchers';

let server: TTestServer;
let clientId: number;
beforeAll(async () => {
  server = await startTestServer({ MESSAGING_WEBHOOK_SECRET: WEBHOOK_SECRET });
  clientId = (await createClient({ name: 'Amelia Hart', phone: '+44 7700 900123' })).id;
});
afterAll(() => server?.stop());

async function outbound(chatMsgId: string | null, status = 'sent') {
  return Communication.create({
    type: 'chat',
    direction: 'outbound',
    status: status as 'sent',
    body: 'Your hearing is on Monday.',
    clientId,
    peerPhone: '447700900123',
    metadata: chatMsgId ? { chat_msg_id: chatMsgId } : {},
  });
}
const statusOf = async (id: number) => (await Communication.findByPk(id))!.status;
const receipt = (id: string, status: string, extra: Record<string, unknown> = {}) =>
  postWebhook(server.url, cloudPayload({ statuses: [{ ...statusItem(id, status), ...extra }] }));

describe('status receipts', () => {
  it('upgrade sent → delivered → read and answer with counts', async () => {
    const record = await outbound('wamid.up-1');
    expect(await receipt('wamid.up-1', 'delivered')).toEqual({ status: 200, json: { ok: true, statuses: 1, updated: 1 } });
    expect(await statusOf(record.id)).toBe('delivered');
    expect((await receipt('wamid.up-1', 'read')).json).toEqual({ ok: true, statuses: 1, updated: 1 });
    expect(await statusOf(record.id)).toBe('read');
  });

  it('when a late delivered receipt arrives after read, the record stays read (read → delivered → sent)', async () => {
    const record = await outbound('wamid.order-1');
    await receipt('wamid.order-1', 'read');
    expect((await receipt('wamid.order-1', 'delivered')).json).toEqual({ ok: true, statuses: 1, updated: 0 });
    await receipt('wamid.order-1', 'sent');
    expect(await statusOf(record.id)).toBe('read');
  });

  it('failed is terminal: a later delivered changes nothing; the provider error is kept', async () => {
    const record = await outbound('wamid.fail-1');
    const errors = [
      {
        code: 131047,
        title: 'Re-engagement message',
        message: 'Re-engagement message',
        error_data: {
          details: 'Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
        },
      },
    ];
    expect((await receipt('wamid.fail-1', 'failed', { errors })).json).toEqual({ ok: true, statuses: 1, updated: 1 });
    await receipt('wamid.fail-1', 'delivered');
    await receipt('wamid.fail-1', 'read');
    const row = await Communication.findByPk(record.id);
    expect(row?.status).toBe('failed');
    // The 24-hour code says what to do (the code and the provider's words stay in the history below).
    expect(row?.error).toMatch(/^More than 24 hours have passed since .+ last wrote: send an approved template\.$/);
    // The history on the record: the failure with the provider's code and details, and the later reports.
    expect(Object.keys(row!.receipts).sort()).toEqual(['delivered', 'failed', 'read']);
    expect(row!.receipts.failed).toMatchObject({ code: 131047, details: match.stringMatching(/24 hours/) });
    expect(await sql(server.databaseUrl, "SELECT 1 FROM chat_receipts WHERE chat_msg_id = 'wamid.fail-1'")).toEqual([]);
  });

  it('failed may follow read', async () => {
    const record = await outbound('wamid.fail-2');
    await receipt('wamid.fail-2', 'read');
    await receipt('wamid.fail-2', 'failed');
    expect(await statusOf(record.id)).toBe('failed');
  });

  it('50 concurrent receipts for one id end at read', async () => {
    const record = await outbound('wamid.storm');
    const order = ['sent', 'delivered', 'read'];
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => receipt('wamid.storm', order[i % 3]!)));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(await statusOf(record.id)).toBe('read');
    expect(results.reduce((n, r) => n + Number(r.json.updated), 0)).toBeLessThanOrEqual(2);
  });

  it('keeps a receipt that arrives before its record and applies it when the id is stored', async () => {
    expect((await receipt('wamid.early', 'delivered')).json).toEqual({ ok: true, statuses: 1, updated: 0 });
    expect(await sql(server.databaseUrl, "SELECT status FROM chat_receipts WHERE chat_msg_id = 'wamid.early'")).toEqual([
      { status: 'delivered' },
    ]);
    const record = await outbound(null, 'pending');
    expect(await recordProviderMessageId(record.id, 'wamid.early')).toBe('delivered');
    expect(await statusOf(record.id)).toBe('delivered');
    expect(Object.keys((await Communication.findByPk(record.id))!.receipts)).toEqual(['delivered']);
    expect(await sql(server.databaseUrl, "SELECT 1 FROM chat_receipts WHERE chat_msg_id = 'wamid.early'")).toEqual([]);
  });

  it('a receipt racing the send that stores its id is never lost', async () => {
    for (let i = 0; i < 40; i++) {
      const record = await outbound(null, 'pending');
      const id = `wamid.race-${i}`;
      await Promise.all([receipt(id, 'read'), recordProviderMessageId(record.id, id)]);
      expect(await statusOf(record.id)).toBe('read');
    }
  });

  it('ignores unknown statuses (played) and receipts for inbound records', async () => {
    const record = await outbound('wamid.played');
    await receipt('wamid.played', 'delivered');
    expect((await receipt('wamid.played', 'played')).json).toEqual({ ok: true, statuses: 1, updated: 0 });
    expect(await statusOf(record.id)).toBe('delivered');
  });

  it('applies a batch of receipts for many records at once', async () => {
    const records = await Promise.all(Array.from({ length: 30 }, (_, i) => outbound(`wamid.batch-${i}`)));
    const statuses = records.map((_, i) => statusItem(`wamid.batch-${i}`, i % 2 ? 'read' : 'delivered'));
    expect((await postWebhook(server.url, cloudPayload({ statuses }))).json).toEqual({ ok: true, statuses: 30, updated: 30 });
    expect(await statusOf(records[1]!.id)).toBe('read');
    expect(await statusOf(records[2]!.id)).toBe('delivered');
  });
});
