import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Attachment } from '../../server/core/db/models/index';
import { MAX_DOWNLOAD_TRIES } from '../../server/media/media-download-queue';
import { PostgresMediaStore } from '../../server/media/media-store';
import { createClient } from '../../server/crm/clients';
import { ProviderClient } from '../../server/provider/provider-client';
import { SIM_API_KEY, startLiveSetup, type TLiveSetup } from '../support/live-setup';
import { cloudPayload, postWebhook, sql } from '../support/webhook';
import { match } from '../support/matchers';

const CLIENT = '447700900123';
// A 1×1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const PDF = Buffer.concat([Buffer.from('%PDF-1.4\n% a letter from the client\n'), Buffer.alloc(40_000, 0x20), Buffer.from('\n%%EOF\n')]);
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

let live: TLiveSetup;
let clientId: number;
beforeAll(async () => {
  // Quick retries so five tries fit in a test; the defaults wait minutes (the provider's error budget).
  live = await startLiveSetup({}, { mediaQueue: { backoffMs: [40, 40, 40, 40], pollMs: 100, leaseMs: 5_000 } });
  clientId = (await createClient({ name: 'Amelia Hart', phone: `+${CLIENT}` })).id;
});
afterAll(() => live?.stop());

const attachmentOf = async (chatMsgId: string) => {
  const [row] = await sql<{ id: number }>(
    live.server.databaseUrl,
    "SELECT a.id FROM attachments a JOIN communications c ON c.id = a.communication_id WHERE c.metadata->>'chat_msg_id' = $1",
    [chatMsgId],
  );
  return (await Attachment.findByPk(row!.id))!;
};
const attachmentsNamed = (id: number) =>
  sql<{ attempts: number; state: string; error: string | null }>(
    live.server.databaseUrl,
    'SELECT attempts, state, error FROM attachments WHERE id = $1',
    [id],
  );
const waitForState = (id: number, state: string, timeout = 10_000) =>
  vi.waitFor(async () => expect((await attachmentsNamed(id))[0]?.state).toBe(state), { timeout, interval: 50 });
const getMedia = (id: number, cookie: string | null = live.staffCookie) =>
  fetch(`${live.server.url}/api/media/${id}`, { headers: cookie ? { cookie } : {} });

describe('inbound files: the webhook answers, the queue downloads', () => {
  it('a photo is recorded pending by the webhook, then downloaded, checked and served inline to signed-in staff', async () => {
    const sent = await live.sim.sendInboundKind({
      kind: 'image',
      from: CLIENT,
      bytesBase64: PNG.toString('base64'),
      mimeType: 'image/png',
      caption: 'the letter',
    });
    expect(sent.json).toMatchObject({ ok: true, received: 1, stored: 1 });
    const file = await attachmentOf(sent.id);
    expect(file.kind).toBe('image');
    await waitForState(file.id, 'stored');
    const stored = await attachmentOf(sent.id);
    expect(stored.sha256).toBe(sha256(PNG));
    expect(Number(stored.size)).toBe(PNG.length);

    const res = await getMedia(file.id);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer())).toEqual(PNG);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('content-disposition')).toMatch(/^inline; filename="?photo-\d+\.png"?$/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toMatch(/^sandbox; default-src 'none'/);
    expect(res.headers.get('cache-control')).toMatch(/^private/);

    const thread = await live.staff.inbox.thread.query({ clientId });
    const item = thread.items.find((i) => i.metadata.chat_msg_id === sent.id)!;
    expect(item.body).toBe('the letter');
    expect(item.attachments).toEqual([
      {
        id: file.id,
        kind: 'image',
        mimeType: 'image/png',
        fileName: null,
        size: PNG.length,
        state: 'stored',
        error: null,
        nextAttemptAt: null,
      },
    ]);
  });

  it('a PDF is a download with its name; an HTML file is never served as HTML; signed-out is 401 and unknown 404', async () => {
    const pdf = await live.sim.sendInboundKind({
      kind: 'document',
      from: CLIENT,
      bytesBase64: PDF.toString('base64'),
      mimeType: 'application/pdf',
      fileName: 'Signed contract.pdf',
    });
    const html = await live.sim.sendInboundKind({
      kind: 'document',
      from: CLIENT,
      bytesBase64: Buffer.from('<script>alert(document.cookie)</script>').toString('base64'),
      mimeType: 'text/html',
      fileName: 'invoice.html',
    });
    const pdfFile = await attachmentOf(pdf.id);
    const htmlFile = await attachmentOf(html.id);
    await waitForState(pdfFile.id, 'stored');
    await waitForState(htmlFile.id, 'stored');

    const pdfRes = await getMedia(pdfFile.id);
    expect(pdfRes.headers.get('content-type')).toBe('application/pdf');
    expect(pdfRes.headers.get('content-disposition')).toBe('attachment; filename="Signed contract.pdf"');
    expect(sha256(Buffer.from(await pdfRes.arrayBuffer()))).toBe(sha256(PDF));

    const htmlRes = await getMedia(htmlFile.id);
    expect(htmlRes.headers.get('content-type')).toBe('application/octet-stream');
    expect(htmlRes.headers.get('content-disposition')).toMatch(/^attachment;/);
    expect(htmlRes.headers.get('content-security-policy')).toMatch(/^sandbox;/);
    await htmlRes.arrayBuffer();

    expect((await getMedia(pdfFile.id, null)).status).toBe(401);
    expect((await getMedia(pdfFile.id, 'firm_chat_session=forged')).status).toBe(401);
    expect((await getMedia(999_999)).status).toBe(404);
    expect((await fetch(`${live.server.url}/api/media/..%2F1`, { headers: { cookie: live.staffCookie } })).status).toBe(404);
  });

  it('a document whose type smuggles HTML after a comma is served as octet-stream, never inline', async () => {
    const sent = await live.sim.sendInboundKind({
      kind: 'image',
      from: CLIENT,
      bytesBase64: Buffer.from('<h1>phish</h1><img src="http://evil.example/p">').toString('base64'),
      mimeType: 'image/png; x=y, text/html',
    });
    const file = await attachmentOf(sent.id);
    await waitForState(file.id, 'stored');
    const res = await getMedia(file.id);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment;/);
    await res.arrayBuffer();
  });

  it('a media answer whose link is not http(s) is refused; a foreign https link is fetched from the provider, with the key sent only there', async () => {
    const client = new ProviderClient({ baseUrl: live.sim.url, apiKey: SIM_API_KEY, profilePath: '/p' });
    await expect(client.downloadMedia('x:.attacker.example/p')).rejects.toMatchObject({ kind: 'unexpected' });
    await expect(client.downloadMedia('x::8080/p')).rejects.toMatchObject({ kind: 'unexpected' });
    const media = await live.sim.addMedia({ bytes: PNG, mimeType: 'image/png' });
    const before = live.sim.requests.length;
    const file = await client.downloadMedia(`https://evil.example:8443/whatsapp_business/attachments/?mid=${media.id}`);
    const parts: Uint8Array[] = [];
    for await (const part of file.body) parts.push(part);
    expect(Buffer.concat(parts)).toEqual(PNG);
    expect(live.sim.requests.slice(before)).toEqual([
      match.objectContaining({ path: '/whatsapp_business/attachments/', apiKey: SIM_API_KEY }),
    ]);
  });

  it('a file whose bytes do not match the provider checksum is tried five times, then failed with the reason; nothing is served', async () => {
    const sent = await live.sim.sendInboundKind({
      kind: 'image',
      from: CLIENT,
      size: 5_000,
      mimeType: 'image/jpeg',
      sha256: 'ab'.repeat(32),
    });
    const file = await attachmentOf(sent.id);
    await waitForState(file.id, 'failed');
    const [row] = await attachmentsNamed(file.id);
    expect(row).toEqual({
      attempts: MAX_DOWNLOAD_TRIES,
      state: 'failed',
      error: "The file did not match the provider's checksum. Gave up after 5 tries.",
    });
    expect(
      await sql(live.server.databaseUrl, 'SELECT count(*)::int AS n FROM attachment_chunks WHERE attachment_id = $1', [file.id]),
    ).toEqual([{ n: 0 }]);
    expect((await getMedia(file.id)).status).toBe(409);
    const thread = await live.staff.inbox.thread.query({ clientId });
    expect(thread.items.find((i) => i.metadata.chat_msg_id === sent.id)?.attachments[0]).toMatchObject({
      state: 'failed',
      error: match.stringContaining('checksum'),
    });
  });

  it('a file the provider no longer has (404) fails at once, without spending the provider’s error budget on retries', async () => {
    const before = live.sim.requests.length;
    const res = await postWebhook(
      live.server.url,
      cloudPayload({
        messages: [
          {
            from: CLIENT,
            id: 'wamid.gone',
            timestamp: String(Math.floor(Date.now() / 1000)),
            type: 'image',
            image: { id: '404404404', mime_type: 'image/jpeg' },
          },
        ],
      }),
    );
    expect(res.json).toMatchObject({ received: 1, stored: 1 });
    const file = await attachmentOf('wamid.gone');
    await waitForState(file.id, 'failed');
    expect(await attachmentsNamed(file.id)).toEqual([
      { attempts: 1, state: 'failed', error: 'The provider no longer has this file (HTTP 404); ask the client to send it again.' },
    ]);
    expect(live.sim.requests.slice(before).filter((r) => r.path === '/404404404')).toHaveLength(1);
  });

  it('a media id that could walk the provider path is never requested: the caption is kept, the file fails with the reason', async () => {
    const before = live.sim.requests.length;
    const res = await postWebhook(
      live.server.url,
      cloudPayload({
        messages: [
          {
            from: CLIENT,
            id: 'wamid.badid',
            timestamp: String(Math.floor(Date.now() / 1000)),
            type: 'image',
            image: { id: '../whatsapp_business_profile', mime_type: 'image/jpeg', caption: 'my passport' },
          },
        ],
      }),
    );
    expect(res.json).toMatchObject({ received: 1, stored: 1 });
    const file = await attachmentOf('wamid.badid');
    await waitForState(file.id, 'failed');
    expect(await attachmentsNamed(file.id)).toEqual([
      { attempts: 1, state: 'failed', error: 'The provider gave no usable id for this file; ask the client to send it again.' },
    ]);
    expect(live.sim.requests.slice(before)).toEqual([]);
    const thread = await live.staff.inbox.thread.query({ clientId });
    expect(thread.items.find((i) => i.metadata.chat_msg_id === 'wamid.badid')?.body).toBe('my passport');
  });

  it('provider 5xx answers are retried with backoff, and the file is stored when the provider recovers', async () => {
    const media = await live.sim.addMedia({ bytes: PNG, mimeType: 'image/png' });
    live.sim.queueResponse({ status: 500 });
    live.sim.queueResponse({ status: 503 });
    await postWebhook(
      live.server.url,
      cloudPayload({
        messages: [
          {
            from: CLIENT,
            id: 'wamid.flaky',
            timestamp: String(Math.floor(Date.now() / 1000)),
            type: 'image',
            image: { id: media.id, mime_type: 'image/png' },
          },
        ],
      }),
    );
    const file = await attachmentOf('wamid.flaky');
    await waitForState(file.id, 'stored');
    expect(await attachmentsNamed(file.id)).toEqual([{ attempts: 3, state: 'stored', error: null }]);
  });

  it('five 5xx answers in a row: failed with the reason, tried exactly five times', async () => {
    const media = await live.sim.addMedia({ bytes: PNG, mimeType: 'image/png' });
    for (let i = 0; i < 5; i++) live.sim.queueResponse({ status: 502 });
    await postWebhook(
      live.server.url,
      cloudPayload({
        messages: [
          {
            from: CLIENT,
            id: 'wamid.down',
            timestamp: String(Math.floor(Date.now() / 1000)),
            type: 'image',
            image: { id: media.id, mime_type: 'image/png' },
          },
        ],
      }),
    );
    const file = await attachmentOf('wamid.down');
    await waitForState(file.id, 'failed');
    expect(await attachmentsNamed(file.id)).toEqual([
      { attempts: 5, state: 'failed', error: 'The provider could not send the file (HTTP 502). Gave up after 5 tries.' },
    ]);
  });

  it('the webhook answers before a slow download has even started streaming', async () => {
    live.sim.configure({ mediaChunkDelayMs: 30 });
    try {
      const sent = await live.sim.sendInboundKind({ kind: 'video', from: CLIENT, size: 2 * 1024 * 1024, mimeType: 'video/mp4' });
      expect(sent.json).toMatchObject({ stored: 1 });
      const file = await attachmentOf(sent.id);
      expect(file.state).toBe('pending'); // answered; the 32 pieces take about a second to come
      await waitForState(file.id, 'stored');
    } finally {
      live.sim.configure({ mediaChunkDelayMs: 0 });
    }
  });
});

describe('sending files', () => {
  const upload = (bytes: Buffer, type: string, name: string, headers: Record<string, string> = { cookie: live.staffCookie }) => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(bytes)], { type }), name);
    return fetch(`${live.server.url}/api/media`, { method: 'POST', body: form, headers });
  };

  it('a PDF uploads, is sent by media id with its caption and name, and keeps its ticks like any message', async () => {
    const res = await upload(PDF, 'application/pdf', 'Engagement letter.pdf');
    expect(res.status).toBe(200);
    const uploaded = (await res.json()) as { attachmentId: number; kind: string; size: number; fileName: string };
    expect(uploaded).toMatchObject({ kind: 'document', size: PDF.length, fileName: 'Engagement letter.pdf' });

    const before = live.sim.requests.length;
    const record = await live.staff.chat.send.mutate({ clientId, body: 'Please sign page 2', attachmentId: uploaded.attachmentId });
    expect(record).toMatchObject({ status: 'sent', body: 'Please sign page 2', metadata: { kind: 'document' } });
    expect(record.attachments).toEqual([
      {
        id: uploaded.attachmentId,
        kind: 'document',
        mimeType: 'application/pdf',
        fileName: 'Engagement letter.pdf',
        size: PDF.length,
        state: 'stored',
        error: null,
        nextAttemptAt: null,
      },
    ]);

    const calls = live.sim.requests.slice(before);
    const mediaCall = calls.find((r) => r.path === '/media')!;
    expect(mediaCall.body).toEqual({
      type: 'application/pdf',
      messaging_product: 'whatsapp',
      fileName: 'Engagement letter.pdf',
      mimeType: 'application/pdf',
      size: PDF.length,
      sha256: sha256(PDF),
    });
    const sendCall = calls.find((r) => r.path === '/messages')!;
    const mediaId = (sendCall.body as { document: { id: string } }).document.id;
    expect(sendCall.body).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: CLIENT,
      type: 'document',
      document: { id: mediaId, caption: 'Please sign page 2', filename: 'Engagement letter.pdf' },
    });
    expect(live.sim.mediaBytes(mediaId)).toEqual(PDF);

    await live.sim.postReceipt(record.metadata.chat_msg_id!, 'delivered', CLIENT);
    await live.sim.postReceipt(record.metadata.chat_msg_id!, 'read', CLIENT);
    const thread = await live.staff.inbox.thread.query({ clientId });
    expect(thread.items.find((i) => i.id === record.id)?.status).toBe('read');

    await expect(live.staff.chat.send.mutate({ clientId, attachmentId: uploaded.attachmentId })).rejects.toThrow(/already been sent/);
  });

  it('refuses a photo over 5 MB with 413 and a clear sentence, storing nothing', async () => {
    const before = await sql(
      live.server.databaseUrl,
      'SELECT (SELECT count(*) FROM attachments)::int AS files, (SELECT count(*) FROM attachment_chunks)::int AS chunks',
    );
    const res = await upload(Buffer.alloc(5 * 1024 * 1024 + 1, 1), 'image/jpeg', 'big.jpg');
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({
      error: { code: 'PAYLOAD_TOO_LARGE', message: 'A photo (JPEG or PNG) can be at most 5.0 MB. Nothing was uploaded.' },
    });
    expect(
      await sql(
        live.server.databaseUrl,
        'SELECT (SELECT count(*) FROM attachments)::int AS files, (SELECT count(*) FROM attachment_chunks)::int AS chunks',
      ),
    ).toEqual(before);
  });

  it('the same 6 MB is fine as a document; audio over 16 MB is refused', async () => {
    expect((await upload(Buffer.alloc(6 * 1024 * 1024, 1), 'application/zip', 'bundle.zip')).status).toBe(200);
    const audio = await upload(Buffer.alloc(16 * 1024 * 1024 + 1, 1), 'audio/mpeg', 'call.mp3');
    expect(audio.status).toBe(413);
    expect(((await audio.json()) as { error: { message: string } }).error.message).toBe(
      'An audio file can be at most 16 MB. Nothing was uploaded.',
    );
  });

  it('uploads need a session, a same-site origin, multipart, and a file', async () => {
    expect((await upload(PNG, 'image/png', 'a.png', {})).status).toBe(401);
    expect((await upload(PNG, 'image/png', 'a.png', { cookie: live.staffCookie, origin: 'https://evil.example' })).status).toBe(403);
    const json = await fetch(`${live.server.url}/api/media`, {
      method: 'POST',
      headers: { cookie: live.staffCookie, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(json.status).toBe(415);
    const form = new FormData();
    form.append('note', 'no file');
    const empty = await fetch(`${live.server.url}/api/media`, { method: 'POST', body: form, headers: { cookie: live.staffCookie } });
    expect(empty.status).toBe(400);
    expect(await empty.json()).toEqual({ error: { code: 'BAD_REQUEST', message: 'Choose a file to upload (multipart field "file").' } });
    expect((await upload(Buffer.alloc(0), 'image/png', 'zero.png')).status).toBe(400);
  });

  it('a caption over 1,024 characters is refused, never sent as a text without its file', async () => {
    const { attachmentId } = (await (await upload(PNG, 'image/png', 'caption.png')).json()) as { attachmentId: number };
    const before = live.sim.requests.length;
    await expect(live.staff.chat.send.mutate({ clientId, attachmentId, body: 'c'.repeat(1025) })).rejects.toMatchObject({
      data: { code: 'BAD_REQUEST' },
    });
    expect(live.sim.requests.length).toBe(before);
  });

  it('a truncated multipart body or a lying Content-Length is a 400, and the server keeps running', async () => {
    const truncated = Buffer.from(
      '--B\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\nContent-Type: application/pdf\r\n\r\nAAAA',
    );
    const res = await fetch(`${live.server.url}/api/media`, {
      method: 'POST',
      body: truncated,
      headers: { cookie: live.staffCookie, 'content-type': 'multipart/form-data; boundary=B' },
    });
    expect(res.status).toBe(400);
    expect((await fetch(`${live.server.url}/api/health`)).status).toBe(200);
  });

  it('a file name typed with accents and emoji is kept as typed', async () => {
    const res = await upload(PNG, 'image/png', 'résumé 📄.png');
    expect(((await res.json()) as { fileName: string }).fileName).toBe('résumé 📄.png');
  });

  it('an upload is sent only by the person who uploaded it', async () => {
    const res = await upload(PNG, 'image/png', 'mine.png');
    const { attachmentId } = (await res.json()) as { attachmentId: number };
    await expect(live.director.chat.send.mutate({ clientId, attachmentId })).rejects.toThrow(/not found/);
  });

  it('a failed file send keeps the file; Retry sends the same bytes again as a new attempt', async () => {
    const { attachmentId } = (await (await upload(PNG, 'image/png', 'retry.png')).json()) as { attachmentId: number };
    live.sim.queueResponse({ status: 429 });
    await expect(live.staff.chat.send.mutate({ clientId, attachmentId })).rejects.toThrow(/rate-limiting/);
    const failed = (await live.staff.inbox.thread.query({ clientId })).items.find((i) => i.attachments[0]?.id === attachmentId)!;
    expect(failed.status).toBe('failed');
    const retried = await live.staff.chat.retry.mutate({ id: failed.id });
    expect(retried.status).toBe('sent');
    expect(retried.attachments[0]).toMatchObject({ kind: 'image', fileName: 'retry.png', state: 'stored' });
    const bytes = await getMedia(retried.attachments[0]!.id);
    expect(Buffer.from(await bytes.arrayBuffer())).toEqual(PNG);
  });

  it('retries of a failed file at the same moment copy it once: the refused ones leave no copy behind', async () => {
    const { attachmentId } = (await (await upload(PNG, 'image/png', 'once.png')).json()) as { attachmentId: number };
    live.sim.queueResponse({ status: 429 });
    await expect(live.staff.chat.send.mutate({ clientId, attachmentId })).rejects.toThrow(/rate-limiting/);
    const failed = (await live.staff.inbox.thread.query({ clientId })).items.find((i) => i.attachments[0]?.id === attachmentId)!;
    const before = await Attachment.count({ where: { fileName: 'once.png' } });
    const outcomes = await Promise.allSettled(Array.from({ length: 6 }, () => live.staff.chat.retry.mutate({ id: failed.id })));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    expect(await Attachment.count({ where: { fileName: 'once.png' } })).toBe(before + 1);
    expect(await Attachment.count({ where: { fileName: 'once.png', communicationId: null } })).toBe(0);
  });
});

describe('a stored file with a chunk missing from the middle', () => {
  const CHUNK = 1000;
  let bytes: Buffer;
  let id: number;
  beforeAll(async () => {
    // Three chunks, the middle one since lost (an old record, a restore gone wrong), written in SQL.
    bytes = randomBytes(3 * CHUNK);
    const [row] = await sql<{ id: number }>(
      live.server.databaseUrl,
      `WITH m AS (INSERT INTO communications (type, direction, body, status, client_id, peer_phone, metadata, receipts, created_at, updated_at)
                  VALUES ('chat', 'inbound', '', NULL, $1, $2, '{"kind": "document"}', '{}', now(), now()) RETURNING id)
       INSERT INTO attachments (communication_id, kind, mime_type, file_name, state, size, sha256)
       SELECT id, 'document', 'application/pdf', 'holed.pdf', 'stored', $3, $4 FROM m RETURNING id`,
      [clientId, CLIENT, bytes.length, sha256(bytes)],
    );
    id = row!.id;
    for (const seq of [0, 2])
      await sql(live.server.databaseUrl, 'INSERT INTO attachment_chunks (attachment_id, seq, data) VALUES ($1, $2, $3)', [
        id,
        seq,
        bytes.subarray(seq * CHUNK, (seq + 1) * CHUNK),
      ]);
  });

  const readAll = async (stream: NodeJS.ReadableStream) => {
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  };

  it('is never read as the chunks either side of the gap put together: the read fails where the bytes are missing', async () => {
    await expect(readAll(new PostgresMediaStore().read(id))).rejects.toThrow('has no chunk 1: part of its stored bytes is missing');
    // A range before the gap is the file's own bytes; one that crosses it fails rather than serve a file that never existed.
    expect(await readAll(new PostgresMediaStore().read(id, { start: 10, end: 999 }))).toEqual(bytes.subarray(10, 1000));
    await expect(readAll(new PostgresMediaStore().read(id, { start: 500, end: 1499 }))).rejects.toThrow('has no chunk 1');
  });

  it('is a download that fails, never one of the wrong bytes', async () => {
    const whole = await getMedia(id);
    expect(whole.status).toBe(200);
    await expect(whole.arrayBuffer()).rejects.toThrow();
    const range = await fetch(`${live.server.url}/api/media/${id}`, { headers: { cookie: live.staffCookie, range: 'bytes=500-1499' } });
    expect(range.status).toBe(206);
    await expect(range.arrayBuffer()).rejects.toThrow();
  });
});
