import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startProviderSimulator, type ProviderSimulator } from '../../server/dev/provider-sim/provider-simulator';
import { match } from '../support/matchers';

// The simulator's media over real HTTP: ids → url → bytes, generated files, multipart uploads,
// media sends, and inbound messages of every kind as posted to a webhook.

const KEY = 'media-sim-key';
let sim: ProviderSimulator;
let webhook: http.Server;
let posted: { field: string; value: Record<string, unknown> }[] = [];

beforeAll(async () => {
  webhook = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    req.on('end', () => {
      const payload = JSON.parse(raw) as { entry: { changes: { field: string; value: Record<string, unknown> }[] }[] };
      for (const change of payload.entry[0]!.changes) posted.push(change);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
  const webhookUrl = `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/hook`;
  sim = await startProviderSimulator({ apiKey: KEY, autoReceipts: false, webhookUrl });
});
afterAll(async () => {
  await sim?.close();
  await new Promise((resolve) => webhook?.close(resolve));
});
beforeEach(() => {
  sim.requests.length = 0;
  posted = [];
  sim.configure({ mediaChunkDelayMs: 0 });
});

const get = (path: string, key: string | null = KEY) => fetch(`${sim.url}${path}`, { headers: key ? { 'PROVIDER-API-KEY': key } : {} });
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** GET /{id}, then the url's path and query on the simulator's own host (as the app does). */
async function download(id: string): Promise<{ info: Record<string, unknown>; res: Response }> {
  const info = (await (await get(`/${id}`)).json()) as Record<string, unknown>;
  const url = new URL(info.url as string);
  return { info, res: await get(`${url.pathname}${url.search}`) };
}

function sendBody(type: string, media: Record<string, unknown>) {
  return { messaging_product: 'whatsapp', recipient_type: 'individual', to: '447700900123', type, [type]: media };
}
const postJson = (path: string, body: unknown, key: string | null = KEY) =>
  fetch(`${sim.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { 'PROVIDER-API-KEY': key } : {}) },
    body: JSON.stringify(body),
  });

describe('provider simulator media', () => {
  it('resolves a media id to a foreign-looking url whose path and query it serves with the key', async () => {
    const bytes = randomBytes(200_000);
    const added = await sim.addMedia({ bytes, mimeType: 'image/png', fileName: 'scan.png' });
    expect(added).toEqual({
      id: match.stringMatching(/^7\d{15}$/),
      sha256Hex: sha256(bytes),
      advertisedSha256Hex: sha256(bytes),
      sha256Base64: Buffer.from(sha256(bytes), 'hex').toString('base64'),
      size: bytes.length,
    });

    const { info, res } = await download(added.id);
    expect(info).toEqual({
      messaging_product: 'whatsapp',
      url: match.any(String),
      mime_type: 'image/png',
      sha256: sha256(bytes),
      file_size: bytes.length,
      id: added.id,
    });
    const url = new URL(info.url as string);
    expect(url.host).toBe('lookaside.example.invalid');
    expect(url.pathname).toBe('/whatsapp_business/attachments/');
    expect(url.searchParams.get('mid')).toBe(added.id);

    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('content-length')).toBe(String(bytes.length));
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.equals(bytes)).toBe(true);
    expect(sim.requests.map((r) => [r.method, r.path, r.body])).toEqual([
      ['GET', `/${added.id}`, null],
      ['GET', '/whatsapp_business/attachments/', null],
    ]);
    expect(sim.requests[1]!.query).toContain(`mid=${added.id}`);

    const mediaPath = `${url.pathname}${url.search}`;
    expect((await get(mediaPath, null)).status).toBe(401);
    expect((await get(mediaPath, 'wrong-key')).status).toBe(401);
    expect((await get(`/${added.id}`, null)).status).toBe(401);
  });

  it('answers 404 in the cloud error shape for an unknown id or url', async () => {
    const res = await get('/7000000000000000');
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: 100, type: 'OAuthException', fbtrace_id: match.any(String) } });
    expect((await get('/whatsapp_business/attachments/?mid=7999999999999999&ext=1&hash=x')).status).toBe(404);
  });

  it('streams a generated 20 MB file whose bytes match the advertised sha256', async () => {
    const size = 20 * 1024 * 1024;
    const added = await sim.addMedia({ size, mimeType: 'application/pdf', fileName: 'bundle.pdf' });
    const { info, res } = await download(added.id);
    expect(info).toMatchObject({ file_size: size, sha256: added.sha256Hex });
    expect(res.headers.get('content-length')).toBe(String(size));
    const hash = createHash('sha256');
    let received = 0;
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    for (let part = await reader.read(); !part.done; part = await reader.read()) {
      hash.update(part.value);
      received += part.value.length;
    }
    expect(received).toBe(size);
    expect(hash.digest('hex')).toBe(added.sha256Hex);
  });

  it('advertises an overridden sha256 (a mismatch) while serving the real bytes', async () => {
    const bytes = Buffer.from('the real bytes');
    const wrong = 'ab'.repeat(32);
    const added = await sim.addMedia({ bytes, mimeType: 'text/plain', sha256: wrong });
    expect(added).toMatchObject({ sha256Hex: sha256(bytes), advertisedSha256Hex: wrong });
    const { info, res } = await download(added.id);
    expect(info.sha256).toBe(wrong);
    expect(sha256(Buffer.from(await res.arrayBuffer()))).toBe(sha256(bytes));

    // The same over the control route; a malformed hash is refused, not stored.
    const viaControl = await postJson(
      '/__sim/media',
      { bytesBase64: bytes.toString('base64'), mimeType: 'text/plain', sha256: Buffer.from(wrong, 'hex').toString('base64') },
      null,
    );
    expect(await viaControl.json()).toMatchObject({
      id: match.stringMatching(/^7\d{15}$/),
      advertisedSha256Hex: wrong,
      size: bytes.length,
    });
    expect((await postJson('/__sim/media', { size: 10, mimeType: 'text/plain', sha256: 'not-a-hash' }, null)).status).toBe(400);
  });

  it('applies scripted responses and the chunk delay to media downloads', async () => {
    const added = await sim.addMedia({ size: 3 * 64 * 1024, mimeType: 'video/mp4' });
    const info = (await (await get(`/${added.id}`)).json()) as { url: string };
    const url = new URL(info.url);
    sim.queueResponse({ status: 500 });
    expect((await get(`${url.pathname}${url.search}`)).status).toBe(500);

    sim.configure({ mediaChunkDelayMs: 40 });
    const started = Date.now();
    const res = await get(`${url.pathname}${url.search}`);
    expect((await res.arrayBuffer()).byteLength).toBe(3 * 64 * 1024);
    expect(Date.now() - started).toBeGreaterThanOrEqual(70);

    // A client that goes away mid-download leaves the simulator serving.
    const abort = new AbortController();
    const cut = await fetch(`${sim.url}${url.pathname}${url.search}`, { headers: { 'PROVIDER-API-KEY': KEY }, signal: abort.signal });
    await cut.body!.getReader().read();
    abort.abort();
    expect((await get(`/${added.id}`)).status).toBe(200);
  });

  it('accepts a multipart upload, records it without the bytes, and serves it back', async () => {
    const bytes = randomBytes(300_000);
    const form = new FormData();
    form.append('messaging_product', 'whatsapp');
    form.append('type', 'application/pdf');
    form.append('file', new Blob([bytes], { type: 'application/pdf' }), 'letter.pdf');
    const res = await fetch(`${sim.url}/media`, { method: 'POST', headers: { 'PROVIDER-API-KEY': KEY }, body: form });
    expect(res.status).toBe(200);
    const { id } = (await res.json()) as { id: string };
    expect(id).toMatch(/^7\d{15}$/);
    expect(sim.requests).toEqual([
      match.objectContaining({
        method: 'POST',
        path: '/media',
        apiKey: KEY,
        body: {
          type: 'application/pdf',
          messaging_product: 'whatsapp',
          fileName: 'letter.pdf',
          mimeType: 'application/pdf',
          size: bytes.length,
          sha256: sha256(bytes),
        },
      }),
    ]);
    expect(sim.mediaBytes(id)).toEqual(bytes);

    const { info, res: back } = await download(id);
    expect(info).toMatchObject({ mime_type: 'application/pdf', sha256: sha256(bytes), file_size: bytes.length });
    expect(Buffer.from(await back.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('refuses an upload without file or messaging_product (400), or without the key (401)', async () => {
    const upload = (fields: Record<string, string>, withFile: boolean, key: string | null = KEY) => {
      const form = new FormData();
      for (const [name, value] of Object.entries(fields)) form.append(name, value);
      if (withFile) form.append('file', new Blob([Buffer.from('x')], { type: 'image/jpeg' }), 'x.jpg');
      return fetch(`${sim.url}/media`, { method: 'POST', headers: key ? { 'PROVIDER-API-KEY': key } : {}, body: form });
    };
    const noFile = await upload({ messaging_product: 'whatsapp', type: 'image/jpeg' }, false);
    expect(noFile.status).toBe(400);
    expect(await noFile.json()).toMatchObject({ error: { error_data: { details: match.stringContaining('file') } } });
    expect((await upload({ type: 'image/jpeg' }, true)).status).toBe(400);
    expect((await upload({ messaging_product: 'whatsapp', type: 'image/jpeg' }, true, null)).status).toBe(401);
    expect((await postJson('/media', { file: 'not multipart' })).status).toBe(400);
  });

  it('accepts a media send of a known id and refuses an unknown one with 131053', async () => {
    const { id } = await sim.addMedia({ bytes: Buffer.from('%PDF-1.4 tiny'), mimeType: 'application/pdf' });
    const ok = await postJson('/messages', sendBody('document', { id, caption: 'Your letter', filename: 'letter.pdf' }));
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ messages: [{ id: match.stringMatching(/^wamid\.SIM/) }] });
    expect((await postJson('/messages', sendBody('image', { id, caption: 'A photo' }))).status).toBe(200);

    const unknown = await postJson('/messages', sendBody('image', { id: '7123456789012345' }));
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({ error: { code: 131053, message: 'Media upload error' } });
    // Strict like the provider: no caption for audio, no filename for an image.
    expect((await postJson('/messages', sendBody('audio', { id, caption: 'no' }))).status).toBe(400);
    expect((await postJson('/messages', sendBody('image', { id, filename: 'x.jpg' }))).status).toBe(400);
  });

  it('posts inbound photos, locations, reactions and echoes in the cloud webhook shape', async () => {
    const photo = await postJson(
      '/__sim/inbound',
      { kind: 'image', from: '447700900123', name: 'Amelia', size: 1000, caption: 'The letter' },
      null,
    );
    expect(photo.status).toBe(200);
    const { id, mediaId } = (await photo.json()) as { id: string; mediaId: string };
    const info = (await (await get(`/${mediaId}`)).json()) as { sha256: string };
    expect(posted).toEqual([
      {
        field: 'messages',
        value: {
          messaging_product: 'whatsapp',
          metadata: { display_phone_number: '442079460000', phone_number_id: 'SIM' },
          contacts: [{ profile: { name: 'Amelia' }, wa_id: '447700900123' }],
          messages: [
            {
              from: '447700900123',
              id,
              timestamp: match.stringMatching(/^\d+$/),
              type: 'image',
              image: {
                id: mediaId,
                mime_type: 'image/jpeg',
                sha256: Buffer.from(info.sha256, 'hex').toString('base64'),
                caption: 'The letter',
              },
            },
          ],
        },
      },
    ]);

    posted = [];
    await postJson('/__sim/inbound', { kind: 'location', from: '447700900123', latitude: 51.5, longitude: -0.12, name: 'Office' }, null);
    await postJson('/__sim/inbound', { kind: 'reaction', from: '447700900123', targetId: 'wamid.X', emoji: '👍' }, null);
    await postJson('/__sim/inbound', { kind: 'reaction', from: '447700900123', targetId: 'wamid.X', emoji: '' }, null);
    await postJson('/__sim/inbound', { kind: 'echo', to: '447700900123', body: 'Sent from the phone' }, null);
    const items = posted.map((p) => [p.field, ((p.value.messages ?? p.value.message_echoes) as Record<string, unknown>[])[0]]);
    expect(items).toEqual([
      ['messages', match.objectContaining({ type: 'location', location: { latitude: 51.5, longitude: -0.12, name: 'Office' } })],
      ['messages', match.objectContaining({ type: 'reaction', reaction: { message_id: 'wamid.X', emoji: '👍' } })],
      ['messages', match.objectContaining({ type: 'reaction', reaction: { message_id: 'wamid.X', emoji: '' } })], // both forms are real (tests/fixtures: unreaction_empty, unreaction_no_emoji)
      [
        'smb_message_echoes',
        {
          from: '442079460000',
          to: '447700900123',
          id: match.any(String),
          timestamp: match.any(String),
          type: 'text',
          text: { body: 'Sent from the phone' },
        },
      ],
    ]);

    const bad = await postJson('/__sim/inbound', { kind: 'location', from: '447700900123', latitude: 'north' }, null);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ ok: false, error: match.stringContaining('latitude') });
    expect((await postJson('/__sim/inbound', { kind: 'audio', from: '447700900123', caption: 'no captions on audio' }, null)).status).toBe(
      400,
    );
  });
});
