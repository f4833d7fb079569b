import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TChatChange } from '../../server/events/chat-events';
import type { TThreadItem } from '../../server/inbox/thread-items';
import { createUser } from '../../server/auth/users';
import { createClient } from '../../server/crm/clients';
import { createHttpClient, startTestServer, type TTestServer } from '../support/test-server';
import { cloudPayload, postWebhook, sql, statusItem, VERIFY_TOKEN, WEBHOOK_SECRET } from '../support/webhook';

// A record's version is PostgreSQL's to keep (migration 0024): every UPDATE adds one, whoever
// writes it — a set-based receipt statement, plain SQL, a change to one of its files — and it
// travels in every item a browser gets, so an older snapshot can be told from a newer one.

let server: TTestServer;
let client: ReturnType<typeof createHttpClient>['client'];
let cookie: string;
let amelia: { id: number };
const changes: TChatChange<TThreadItem>[] = [];

beforeAll(async () => {
  server = await startTestServer({ MESSAGING_WEBHOOK_SECRET: WEBHOOK_SECRET, MESSAGING_WEBHOOK_VERIFY_TOKEN: VERIFY_TOKEN }); // demo mode
  await createUser({ email: 'dee@firm.test', name: 'Dee', role: 'director', password: 'director-password' });
  const http = createHttpClient(server.url);
  client = http.client;
  await client.auth.signIn.mutate({ email: 'dee@firm.test', password: 'director-password' });
  cookie = [...http.jar].map(([k, v]) => `${k}=${v}`).join('; ');
  amelia = await createClient({ name: 'Amelia Hart', phone: '+44 7700 900123' });
  server.events.subscribe((c) => changes.push(c));
});
afterAll(() => server?.stop());

/** The stored versions of these records, by id (as the request role reads them). */
async function versionsOf(ids: number[]): Promise<Map<number, number>> {
  const rows = await sql<{ id: number; version: string }>(
    server.requestDatabaseUrl,
    'SELECT id, version FROM communications WHERE id = ANY($1)',
    [ids],
  );
  return new Map(rows.map((r) => [r.id, Number(r.version)]));
}

const liveItems = () => changes.flatMap((c) => ('items' in c ? c.items : []));

describe('record versions', () => {
  it('a set-based receipt statement adds one to each record it changes, and the new version reaches live items and pages', async () => {
    const first = await client.chat.send.mutate({ clientId: amelia.id, body: 'First' });
    const second = await client.chat.send.mutate({ clientId: amelia.id, body: 'Second' });
    // Inserted, then its provider id stored (one UPDATE): the answer holds the stored version.
    const before = await versionsOf([first.id, second.id]);
    expect(first.version).toBe(before.get(first.id));
    expect(second.version).toBe(before.get(second.id));
    expect(first.version).toBeGreaterThanOrEqual(2);

    const delivery = cloudPayload({
      statuses: [statusItem(first.metadata.chat_msg_id!, 'delivered'), statusItem(second.metadata.chat_msg_id!, 'delivered')],
    });
    expect((await postWebhook(server.url, delivery)).status).toBe(200);
    const after = await versionsOf([first.id, second.id]);
    expect(after.get(first.id)).toBe(before.get(first.id)! + 1);
    expect(after.get(second.id)).toBe(before.get(second.id)! + 1);

    await vi.waitFor(() =>
      expect(liveItems().filter((i) => i.status === 'delivered')).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ id: first.id, version: after.get(first.id) }),
          expect.objectContaining({ id: second.id, version: after.get(second.id) }),
        ]),
      ),
    );
    const thread = await client.inbox.thread.query({ clientId: amelia.id });
    expect(thread.items.filter((i) => i.id === first.id || i.id === second.id).map((i) => i.version)).toEqual([
      after.get(first.id),
      after.get(second.id),
    ]);
    const timeline = await client.timeline.client.query({ clientId: amelia.id });
    expect(timeline.items.find((i) => i.id === first.id)?.version).toBe(after.get(first.id));
  });

  it('any UPDATE adds one, written by anyone: plain SQL that never names the version', async () => {
    const sent = await client.chat.send.mutate({ clientId: amelia.id, body: 'Third' });
    const before = (await versionsOf([sent.id])).get(sent.id)!;
    await sql(server.requestDatabaseUrl, 'UPDATE communications SET updated_at = now() WHERE id = $1', [sent.id]);
    await sql(server.requestDatabaseUrl, 'UPDATE communications SET body = body || $2 WHERE id = ANY($1)', [[sent.id], '!']);
    expect((await versionsOf([sent.id])).get(sent.id)).toBe(before + 2);
    // A writer cannot set it back.
    await sql(server.requestDatabaseUrl, 'UPDATE communications SET version = 1 WHERE id = $1', [sent.id]);
    expect((await versionsOf([sent.id])).get(sent.id)).toBe(before + 3);
  });

  it('a shown change to a file adds one to its record; its download lease and tries do not', async () => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(Buffer.from('%PDF-1.4 letter'))], { type: 'application/pdf' }), 'Letter.pdf');
    const uploaded = (await (await fetch(`${server.url}/api/media`, { method: 'POST', body: form, headers: { cookie } })).json()) as {
      attachmentId: number;
    };
    const sent = await client.chat.send.mutate({ clientId: amelia.id, attachmentId: uploaded.attachmentId, body: 'The letter' });
    const before = (await versionsOf([sent.id])).get(sent.id)!;
    expect(sent.version).toBe(before);

    await sql(
      server.requestDatabaseUrl,
      `UPDATE attachments SET attempts = attempts + 1, locked_until = now() + interval '1 minute', updated_at = now() WHERE id = $1`,
      [uploaded.attachmentId],
    );
    await sql(server.requestDatabaseUrl, 'UPDATE attachments SET state = state WHERE id = $1', [uploaded.attachmentId]);
    expect((await versionsOf([sent.id])).get(sent.id)).toBe(before);

    await sql(server.requestDatabaseUrl, `UPDATE attachments SET file_name = NULL, erased_at = now() WHERE id = $1`, [
      uploaded.attachmentId,
    ]);
    expect((await versionsOf([sent.id])).get(sent.id)).toBe(before + 1);
  });
});
