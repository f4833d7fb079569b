import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { TRPCClientError } from '@trpc/client';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { createUser } from '../../server/auth/users';
import { queryRows, sql as sqlOf } from '../../server/core/sql';
import { windowOpen } from '../../server/scheduling/reply-window';
import { wallTimeIn } from '../../shared/zoned-time';
import { createLogger } from '../../server/core/logger';
import { captureLogLines } from '../support/log-capture';
import { createHttpClient, startTestServer, type TTestServer } from '../support/test-server';
import { sql } from '../support/webhook';
import { readZip, zipOf } from '../support/zip-entries';

// History from the phone (server/imports/README.md "History from the phone"): an export uploaded,
// previewed, committed to a client's file; again (nothing twice); behind the walls; on the trail.

const CORPUS = path.join(__dirname, '../fixtures/whatsapp-exports');
type TClient = ReturnType<typeof createHttpClient>['client'];
type TPreview = {
  importId: string;
  messages: number;
  attachments: number;
  missingMedia: number;
  participants: { name: string; messages: number }[];
};

const { destination } = captureLogLines();
let server: TTestServer;
let dee: TClient;
let sam: TClient;
let deeCookie: string;
let samCookie: string;
let anna: { id: number };
let walled: { id: number };

const cookieOf = (jar: Map<string, string>) => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');

async function upload(cookie: string, name: string, bytes: Buffer): Promise<{ status: number; body: Record<string, unknown> }> {
  const form = new FormData();
  form.append('file', new Blob([bytes]), name);
  const res = await fetch(`${server.url}/api/imports/whatsapp`, { method: 'POST', headers: { cookie, origin: server.url }, body: form });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Sam uploads an export and imports it to Anna's file, Sam Lawyer as the firm. */
async function samImports(name: string, bytes: Buffer) {
  const res = await upload(samCookie, name, bytes);
  const { importId } = res.body as unknown as TPreview;
  return sam.imports.commit.mutate({ importId, clientId: anna.id, firmParticipants: ['Sam Lawyer'] });
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TRPCClientError);
  return (error as { data?: { code?: string } }).data?.code ?? '';
}

let exportZip: Buffer;

beforeAll(async () => {
  server = await startTestServer(
    { SESSION_SECRET: 'imports-session-secret-0123456789abcdef', FIRM_TIME_ZONE: 'Europe/London' },
    createLogger('info', destination),
  );
  await createUser({ email: 'dee@firm.test', name: 'Dee Director', role: 'director', password: 'director-password' });
  const samUser = await createUser({ email: 'sam@firm.test', name: 'Sam Staff', role: 'staff', password: 'staff-password' });
  const d = createHttpClient(server.url);
  dee = d.client;
  await dee.auth.signIn.mutate({ email: 'dee@firm.test', password: 'director-password' });
  deeCookie = cookieOf(d.jar);
  const s = createHttpClient(server.url);
  sam = s.client;
  await sam.auth.signIn.mutate({ email: 'sam@firm.test', password: 'staff-password' });
  samCookie = cookieOf(s.jar);
  anna = await dee.clients.create.mutate({ name: 'Anna Client', phone: '+447700900123' });
  walled = await dee.clients.create.mutate({ name: 'Walled Client', phone: '+447700900999' });
  await dee.access.screen.mutate({ clientId: walled.id, userId: samUser.id, reason: 'acted for the other side' });
  exportZip = await zipOf([
    ['WhatsApp Chat with Anna Client/_chat.txt', await readFile(path.join(CORPUS, 'android-en-GB-24h.txt'))],
    ['WhatsApp Chat with Anna Client/lease.pdf', Buffer.from('%PDF-1.4 the lease')],
  ]);
});
afterAll(async () => {
  await server?.stop();
});

describe('an export, previewed and imported', () => {
  let preview: TPreview;

  it('the preview reads participants, counts, files and the date order; nothing is a record yet', async () => {
    const res = await upload(samCookie, 'WhatsApp Chat with Anna Client.zip', exportZip);
    expect(res.status).toBe(200);
    preview = res.body as unknown as TPreview;
    expect(res.body).toMatchObject({
      messages: 7,
      attachments: 1,
      missingMedia: 1,
      dateOrder: 'DMY',
      ambiguous: false,
      firstAt: '2026-02-12T09:06:00.000Z',
      lastAt: '2026-02-13T14:30:00.000Z',
      participants: [
        { name: 'Anna Client', messages: 5 },
        { name: 'Sam Lawyer', messages: 2 },
      ],
    });
    const [{ n }] = (await sql(server.databaseUrl, `SELECT count(*)::int AS n FROM communications WHERE status = 'imported'`)) as [
      { n: number },
    ];
    expect(n).toBe(0);
  });

  it('commits: records with sender, time, text and the file under its own name, marked imported; open views are told', async () => {
    const listener = new pg.Client({ connectionString: server.databaseUrl });
    await listener.connect();
    const told: string[] = [];
    listener.on('notification', (n) => told.push(n.payload ?? ''));
    await listener.query('LISTEN firm_chat_changes');
    const result = await sam.imports.commit.mutate({ importId: preview.importId, clientId: anna.id, firmParticipants: ['Sam Lawyer'] });
    expect(result).toEqual({ imported: 7, duplicates: 0, attachments: 1 });
    await vi.waitFor(() => expect(told).toContain('"resync"'));
    // How far it got, read beside its transaction while it ran: all of it now; for its importer only.
    expect(await sam.imports.progress.query({ importId: preview.importId })).toEqual({ done: 7, total: 7 });
    expect(await codeOf(dee.imports.progress.query({ importId: preview.importId }))).toBe('NOT_FOUND');
    await listener.end();
    const page = await sam.inbox.thread.query({ clientId: anna.id });
    const items = page.items.filter((item) => item.status === 'imported');
    expect(items.map((item) => [item.direction, item.body, new Date(item.createdAt).toISOString()])).toEqual([
      ['inbound', 'Hello, I have a question about the lease.', '2026-02-12T09:06:00.000Z'],
      ['outbound', 'Of course.\nSend me the contract, please.', '2026-02-12T09:41:00.000Z'],
      ['inbound', '', '2026-02-12T10:02:00.000Z'],
      ['inbound', '', '2026-02-12T10:03:00.000Z'],
      ['outbound', 'Thanks: I will read it tonight', '2026-02-12T21:15:00.000Z'],
      ['inbound', '', '2026-02-13T08:00:00.000Z'],
      ['inbound', '13:00 works – see you then 👍', '2026-02-13T14:30:00.000Z'],
    ]);
    const file = items[2]!;
    expect(file.attachments).toMatchObject([{ fileName: 'lease.pdf', kind: 'document', mimeType: 'application/pdf' }]);
    expect(file.metadata.imported).toMatchObject({ importId: preview.importId, line: 5, sender: 'Anna Client' });
    expect(file.metadata.imported!.fileSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(items[3]!.metadata.imported).toMatchObject({ missing: 'omitted' });
    expect(items[4]!.metadata.imported).toMatchObject({ edited: true, sender: 'Sam Lawyer' });
  });

  it('counts for nobody: no unread, no open 24-hour window, nobody waiting', async () => {
    expect(await dee.inbox.unreadCount.query()).toMatchObject({ conversations: 0 });
    const summary = await dee.inbox.threadSummary.query({ clientId: anna.id });
    expect(summary).toMatchObject({ unread: 0 });
    const [thread] = await sql<{
      inbound: number;
      unread: number;
      last_inbound_at: string | null;
    }>(server.databaseUrl, `SELECT inbound, unread, last_inbound_at FROM chat_threads WHERE client_id = $1`, [anna.id]);
    expect(thread).toEqual({ inbound: 0, unread: 0, last_inbound_at: null });
    const waiting = await dee.inbox.threads.query({ filter: 'awaiting_reply' });
    expect(waiting.threads.map((t) => t.clientId)).not.toContain(anna.id);
  });

  it('the same export again adds nothing; the trail records both with the file SHA-256', async () => {
    const again = await upload(deeCookie, 'same again.zip', exportZip);
    expect(again.status).toBe(200);
    const result = await dee.imports.commit.mutate({
      importId: (again.body as unknown as TPreview).importId,
      clientId: anna.id,
      firmParticipants: ['Sam Lawyer'],
    });
    expect(result).toEqual({ imported: 0, duplicates: 7, attachments: 0 });
    const listed = await sam.imports.list.query({ clientId: anna.id });
    expect(listed.map((i) => [i.imported, i.duplicates, i.committedBy?.name])).toEqual([
      [0, 7, 'Dee Director'],
      [7, 0, 'Sam Staff'],
    ]);
    const trail = await sql<{ subject: string; detail: { fileSha256: string; imported: number } }>(
      server.databaseUrl,
      `SELECT subject, detail FROM audit_events WHERE action = 'import.commit' ORDER BY id`,
    );
    expect(trail.map((e) => [e.subject, e.detail.imported])).toEqual([
      [`client:${anna.id}`, 7],
      [`client:${anna.id}`, 0],
    ]);
    expect(trail[0]!.detail.fileSha256).toBe(listed[1]!.fileSha256);
    expect(trail[0]!.detail.fileSha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('an export overlapping the first adds only what is new', async () => {
    const text =
      (await readFile(path.join(CORPUS, 'android-en-GB-24h.txt'), 'utf8')) + '14/02/2026, 09:00 - Anna Client: One more thing.\n';
    expect(await samImports('later.txt', Buffer.from(text))).toEqual({ imported: 1, duplicates: 7, attachments: 0 });
  });

  it('a message imported from half an hour ago opens no 24-hour window', async () => {
    const recent = wallTimeIn(new Date(Date.now() - 30 * 60_000), 'Europe/London');
    const pad = (n: number) => String(n).padStart(2, '0');
    const line = `${pad(recent.day)}/${pad(recent.month)}/${recent.year}, ${pad(recent.hour)}:${pad(recent.minute)} - Anna Client: Just now (31/12/2025).`;
    const res = await upload(samCookie, 'recent.txt', Buffer.from(`31/12/2025, 10:00 - Anna Client: Day first.\n${line}\n`));
    expect(res.status).toBe(200);
    const result = await sam.imports.commit.mutate({
      importId: (res.body as unknown as TPreview).importId,
      clientId: anna.id,
      firmParticipants: [],
    });
    expect(result.imported).toBe(2);
    const [open] = await queryRows<{ open: boolean }>(sqlOf`SELECT ${windowOpen(sqlOf`${'447700900123'}`)} AS open`);
    expect(open).toEqual({ open: false });
  });

  it('the exports say where imported messages came from', async () => {
    const res = await fetch(`${server.url}/api/export/client/${anna.id}.json`, { headers: { cookie: deeCookie } });
    const exported = (await res.json()) as {
      messages: { status: string; body: string; imported: { statement: string; sender: string; line: number } | null }[];
    };
    const imported = exported.messages.filter((m) => m.status === 'imported');
    expect(imported).toHaveLength(10);
    expect(imported.find((m) => m.body.startsWith('Hello, I have a question'))!.imported).toMatchObject({
      statement: "Imported from the phone's export, not received through the provider",
      sender: 'Anna Client',
      line: 2,
    });
  });
});

describe('an export uploaded resumably first', () => {
  it('is read from the upload named by {attachmentId}, as a copy of its own; someone else’s upload is 404', async () => {
    const form = new FormData();
    form.append('file', new Blob([exportZip], { type: 'application/zip' }), 'resumed.zip');
    const uploaded = await fetch(`${server.url}/api/media`, {
      method: 'POST',
      headers: { cookie: samCookie, origin: server.url },
      body: form,
    });
    const { attachmentId } = (await uploaded.json()) as { attachmentId: number };
    const asJson = (cookie: string, body: unknown) =>
      fetch(`${server.url}/api/imports/whatsapp`, {
        method: 'POST',
        headers: { cookie, origin: server.url, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await asJson(deeCookie, { attachmentId })).status).toBe(404);
    const res = await asJson(samCookie, { attachmentId });
    expect(res.status).toBe(200);
    const preview = (await res.json()) as TPreview & { fileName: string };
    expect(preview).toMatchObject({ fileName: 'resumed.zip', messages: 7, attachments: 1 });
    // The preview keeps a copy, nobody's upload: the upload stays its uploader's, and the copy cannot be fetched alone.
    const [kept] = await sql<{ attachment_id: number; uploaded_by: number | null }>(
      server.databaseUrl,
      'SELECT i.attachment_id, a.uploaded_by FROM phone_imports i JOIN attachments a ON a.id = i.attachment_id WHERE i.id = $1',
      [preview.importId],
    );
    expect(kept!.attachment_id).not.toBe(attachmentId);
    expect(kept!.uploaded_by).toBeNull();
    expect((await fetch(`${server.url}/api/media/${kept!.attachment_id}`, { headers: { cookie: samCookie } })).status).toBe(404);
    await sam.imports.discard.mutate({ importId: preview.importId });
  });
});

describe('the court bundle', () => {
  it('keeps each phone export the imported messages came from, whole, listed in its manifest, and verifies as genuine', async () => {
    const res = await fetch(`${server.url}/api/export/client/${anna.id}.zip`, { headers: { cookie: deeCookie } });
    expect(res.status).toBe(200);
    const bundle = Buffer.from(await res.arrayBuffer());
    const entries = await readZip(bundle);
    const imports = await sam.imports.list.query({ clientId: anna.id });
    const exports = entries.filter(([name]) => name.startsWith('phone-exports/'));
    // Three imports on file; the records came from the first and the third (the second added nothing).
    const used = imports.filter((i) => i.imported > 0);
    expect(exports.map(([name]) => name.split('/')[1]!.slice(0, 36)).sort()).toEqual(used.map((i) => i.importId).sort());
    for (const [name, bytes] of exports) {
      const made = used.find((i) => name.includes(i.importId))!;
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(made.fileSha256);
    }
    const manifest = JSON.parse(entries.find(([name]) => name === 'manifest.json')![1].toString('utf8')) as { files: { path: string }[] };
    expect(manifest.files.filter((f) => f.path.startsWith('phone-exports/'))).toHaveLength(used.length);
    const verified = await fetch(`${server.url}/api/export/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream', cookie: deeCookie, origin: server.url },
      body: new Uint8Array(bundle),
    });
    expect(((await verified.json()) as { verdict: string }).verdict).toBe('genuine');
  });
});

describe('the court bundle, behind a wall', () => {
  it('leaves a phone export out for someone walled from any message made from it', async () => {
    const bundleEntries = async (cookie: string) => {
      const res = await fetch(`${server.url}/api/export/client/${anna.id}.zip`, { headers: { cookie } });
      expect(res.status).toBe(200);
      return (await readZip(Buffer.from(await res.arrayBuffer())))
        .map(([name]) => name)
        .filter((name) => name.startsWith('phone-exports/'));
    };
    // (Both could read the exports a moment ago: the test above.)
    const hush = await dee.cases.create.mutate({ clientId: anna.id, reference: 'ANNA-HUSH', title: 'Hush' });
    await dee.access.addMember.mutate({ caseId: hush.id, userId: (await dee.auth.me.query())!.id });
    await dee.access.setRestricted.mutate({ caseId: hush.id, restricted: true });
    const [record] = await sql<{ id: number }>(
      server.databaseUrl,
      `SELECT id FROM communications WHERE client_id = $1 AND status = 'imported' AND body LIKE 'Hello, I have%'`,
      [anna.id],
    );
    await dee.timeline.refile.mutate({ clientId: anna.id, ids: [record!.id], caseId: hush.id });
    expect(await bundleEntries(samCookie)).toEqual([]);
    expect(await bundleEntries(deeCookie)).not.toHaveLength(0);
    // An import made to the walled case is not listed for them either.
    const text = '20/03/2026, 09:00 - Anna Client: About the hush matter\n20/03/2026, 09:01 - Dee Director: Noted\n';
    const res = await upload(deeCookie, 'hush.txt', Buffer.from(text));
    const importId = (res.body as unknown as TPreview).importId;
    await dee.imports.commit.mutate({ importId, clientId: anna.id, caseId: hush.id, firmParticipants: ['Dee Director'] });
    expect((await dee.imports.list.query({ clientId: anna.id })).map((i) => i.importId)).toContain(importId);
    expect((await sam.imports.list.query({ clientId: anna.id })).map((i) => i.importId)).not.toContain(importId);
  }, 90_000); // two court bundles, each a PDF of the chat: seconds each on a busy machine
});

describe('walls and ownership', () => {
  it('a screened person cannot import to the client, nor list its imports: NOT_FOUND, as for no client', async () => {
    const res = await upload(samCookie, 'x.zip', exportZip);
    const importId = (res.body as unknown as TPreview).importId;
    expect(await codeOf(sam.imports.commit.mutate({ importId, clientId: walled.id, firmParticipants: ['Sam Lawyer'] }))).toBe('NOT_FOUND');
    expect(await codeOf(sam.imports.commit.mutate({ importId, clientId: 999_999, firmParticipants: ['Sam Lawyer'] }))).toBe('NOT_FOUND');
    expect(await codeOf(sam.imports.list.query({ clientId: walled.id }))).toBe('NOT_FOUND');
    // Someone else's preview does not exist for them either.
    expect(await codeOf(dee.imports.commit.mutate({ importId, clientId: anna.id, firmParticipants: ['Sam Lawyer'] }))).toBe('NOT_FOUND');
    expect(await codeOf(dee.imports.discard.mutate({ importId }))).toBe('NOT_FOUND');
    const [{ n }] = (await sql(server.databaseUrl, `SELECT count(*)::int AS n FROM communications WHERE client_id = $1`, [walled.id])) as [
      { n: number },
    ];
    expect(n).toBe(0);
  });

  it('a discarded preview leaves nothing: its row and its file are gone', async () => {
    const res = await upload(samCookie, 'drop.zip', exportZip);
    const importId = (res.body as unknown as TPreview).importId;
    await sam.imports.discard.mutate({ importId });
    const rows = await sql(server.databaseUrl, `SELECT 1 FROM phone_imports WHERE id = $1`, [importId]);
    expect(rows).toHaveLength(0);
    expect(await codeOf(sam.imports.commit.mutate({ importId, clientId: anna.id, firmParticipants: ['Sam Lawyer'] }))).toBe('NOT_FOUND');
  });

  it('refuses names not in the export, an import where everyone is the firm, and one where nobody is', async () => {
    const res = await upload(samCookie, 'names.zip', exportZip);
    const importId = (res.body as unknown as TPreview).importId;
    expect(await codeOf(sam.imports.commit.mutate({ importId, clientId: anna.id, firmParticipants: ['Nobody'] }))).toBe('BAD_REQUEST');
    expect(await codeOf(sam.imports.commit.mutate({ importId, clientId: anna.id, firmParticipants: [] }))).toBe('BAD_REQUEST');
    expect(await codeOf(sam.imports.commit.mutate({ importId, clientId: anna.id, firmParticipants: ['Sam Lawyer', 'Anna Client'] }))).toBe(
      'BAD_REQUEST',
    );
  });

  it('a discard does not wait for a commit under way: CONFLICT, and the commit decides', async () => {
    const res = await upload(samCookie, 'held.zip', exportZip);
    const importId = (res.body as unknown as TPreview).importId;
    const holder = new pg.Client({ connectionString: server.databaseUrl });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM phone_imports WHERE id = $1 FOR NO KEY UPDATE', [importId]);
    expect(await codeOf(sam.imports.discard.mutate({ importId }))).toBe('CONFLICT');
    await holder.query('ROLLBACK');
    await holder.end();
    await sam.imports.discard.mutate({ importId });
  });

  it('stores a file once, however many messages name it', async () => {
    const photo = randomBytes(64 * 1024);
    const lines = Array.from({ length: 5 }, (_, i) => `02/03/2026, 10:0${i} - Anna Client: IMG-1.jpg (file attached)`);
    const zip = await zipOf([
      ['_chat.txt', Buffer.from(`${lines.join('\n')}\n02/03/2026, 11:00 - Sam Lawyer: Got them\n`)],
      ['IMG-1.jpg', photo],
    ]);
    expect(await samImports('same-photo.zip', zip)).toEqual({ imported: 6, duplicates: 0, attachments: 1 });
  });

  it('refuses what is not an export with a sentence, keeping nothing', async () => {
    const before = await sql<{ n: number }>(server.databaseUrl, `SELECT count(*)::int AS n FROM attachments`);
    const res = await upload(samCookie, 'notes.txt', Buffer.from('shopping list\nmilk\neggs\nbread\nbutter\njam\ntea\n'));
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body)).toMatch(/not a WhatsApp chat export/);
    const after = await sql<{ n: number }>(server.databaseUrl, `SELECT count(*)::int AS n FROM attachments`);
    expect(after[0]!.n).toBe(before[0]!.n);
  });
});
