import { createHash } from 'node:crypto';
import { getDocument, OPS } from 'pdfjs-dist/legacy/build/pdf.mjs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { User } from '../../server/core/db/models/index';
import { createCase } from '../../server/crm/cases';
import { createClient } from '../../server/crm/clients';
import { readExport, type TExportHeader } from '../../server/export/read-export';
import { startLiveSetup, type TLiveSetup } from '../support/live-setup';
import { sql } from '../support/sql';

// The PDF export a court accepts (server/export/README.md "Evidence exports"): photos drawn with their exhibit
// numbers, other files listed with size and SHA-256 and indexed, replies quoting what they answer,
// button choices labelled, resent copies naming their original, "page N of M", times on the firm's
// clock with UTC beside, hidden characters shown by their code, right-to-left scripts in reading
// order, and a message kept on one page. Read back as a viewer reads it (pdf.js).

const CLIENT = '447700900321';
/** Right to left over several lines: each line in reading order, the lines in order. */
const HEBREW_PARAGRAPH = 'המסמכים מוכנים לחתימה במשרד שלנו ביום שני בבוקר '.repeat(6).trim();
/** Hours saved only for their zone: Tokyo is UTC+9 all year. */
const TOKYO_HOURS = { timeZone: 'Asia/Tokyo', week: [], closedDates: [], autoReply: null };
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Each page's text (pdf.js, as export.test.ts reads it) and how many images it paints. */
async function readPdf(bytes: Buffer): Promise<{ pages: string[]; images: number[]; raw: string }> {
  const pdf = await getDocument({ data: new Uint8Array(bytes), isEvalSupported: false, useSystemFonts: false, verbosity: 0 }).promise;
  try {
    const pages: string[] = [];
    const images: number[] = [];
    for (let n = 1; n <= pdf.numPages; n++) {
      const page = await pdf.getPage(n);
      const content = await page.getTextContent();
      pages.push(content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : '')).join(''));
      images.push((await page.getOperatorList()).fnArray.filter((op) => op === OPS.paintImageXObject).length);
    }
    return { pages, images, raw: bytes.toString('latin1') };
  } finally {
    await pdf.destroy();
  }
}
/** Each page's text, the paths it fills and strokes (pdf.js folds each into a constructPath) and how many dashed lines it begins. */
async function readPdfDrawing(bytes: Buffer): Promise<{ pages: string[]; fills: number[]; strokes: number[]; dashes: number[] }> {
  const pdf = await getDocument({ data: new Uint8Array(bytes), isEvalSupported: false, useSystemFonts: false, verbosity: 0 }).promise;
  try {
    const pages: string[] = [];
    const fills: number[] = [];
    const strokes: number[] = [];
    const dashes: number[] = [];
    for (let n = 1; n <= pdf.numPages; n++) {
      const page = await pdf.getPage(n);
      const content = await page.getTextContent();
      pages.push(content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : '')).join(''));
      const list = await page.getOperatorList();
      const painted = (paint: number) =>
        list.fnArray.filter((op, i) => op === OPS.constructPath && (list.argsArray[i] as [number])[0] === paint).length;
      fills.push(painted(OPS.fill));
      strokes.push(painted(OPS.stroke));
      // setDash's first argument is the pattern: empty when a dash ends.
      dashes.push(list.fnArray.filter((op, i) => op === OPS.setDash && (list.argsArray[i] as [number[]])[0].length > 0).length);
    }
    return { pages, fills, strokes, dashes };
  } finally {
    await pdf.destroy();
  }
}
/** Text as one line: pdf.js breaks lines where the PDF wraps them. */
const flat = (text: string) => text.replace(/\s+/g, ' ');

let live: TLiveSetup;
let staff: { id: number; name: string; email: string };
let clientId: number;
const ids: Record<string, number> = {};
let photoBytes: Buffer;
let contractBytes: Buffer;

async function download(path: string) {
  const res = await fetch(`${live.server.url}/api/export/${path}`, { headers: { cookie: live.staffCookie } });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}
const idOf = async (chatMsgId: string) =>
  Number(
    (
      await sql<{ id: number }>(live.server.databaseUrl, `SELECT id FROM communications WHERE metadata->>'chat_msg_id' = $1`, [chatMsgId])
    )[0]!.id,
  );

beforeAll(async () => {
  live = await startLiveSetup({ FIRM_NAME: 'Haddad & Partners' }, { mediaQueue: { pollMs: 50 } });
  const user = (await User.findOne({ where: { email: 'sam@firm.test' } }))!;
  staff = { id: user.id, name: user.name, email: user.email };
  clientId = (await createClient({ name: 'Nadia Haddad', phone: `+${CLIENT}` })).id;

  // Fixed times first (stored before everything the simulator sends now): other scripts, hidden
  // characters, a file whose bytes never arrived.
  const fixed = await sql<{ id: number; body: string }>(
    live.server.databaseUrl,
    `INSERT INTO communications (type, direction, body, status, client_id, peer_phone, metadata, receipts, provider_timestamp, created_at, updated_at)
     SELECT 'chat', 'inbound', b.body, NULL, $1, $2, '{}', '{}', timestamptz '2026-03-01 20:00:00+00' + b.n * interval '1 second',
            timestamptz '2026-03-01 20:00:00+00' + b.n * interval '1 second', now()
     FROM unnest($3::text[]) WITH ORDINALITY AS b(body, n)
     RETURNING id, body`,
    [
      clientId,
      CLIENT,
      [
        'Καλημέρα σας, τα έγγραφα είναι έτοιμα',
        'Добрый день, документы готовы',
        'שלום המסמכים מוכנים',
        'مرحبا المستندات جاهزة',
        'Pay into account\u200B 12345 and open \u202Efdp.exe',
        'The scan is attached',
        HEBREW_PARAGRAPH,
      ],
    ],
  );
  ids.scan = fixed[5]!.id;
  await sql(
    live.server.databaseUrl,
    `INSERT INTO attachments (communication_id, kind, mime_type, file_name, size, sha256, state) VALUES ($1, 'document', 'application/octet-stream', $2, NULL, NULL, 'failed')`,
    [ids.scan, '\u202Efdp.exe'],
  );

  // Then as it happens: the client writes, the firm asks with buttons, the client presses one and
  // replies to the question, replies to a message the firm never had, sends a photo and a contract.
  await live.sim.sendInbound(CLIENT, 'Can we meet about the lease?', 'Nadia');
  const question = await live.staff.chat.sendButtons.mutate({
    clientId,
    body: 'Can you come on Friday at 10?',
    buttons: [
      { id: 'yes', title: 'Yes' },
      { id: 'no', title: 'No' },
      { id: 'call', title: 'Call me' },
    ],
  });
  ids.question = question.id;
  await live.sim.pressButton(question.metadata.chat_msg_id!, 'yes');
  await live.sim.sendInboundKind({
    kind: 'reply',
    from: CLIENT,
    body: 'I will bring the lease',
    contextId: question.metadata.chat_msg_id!,
  });
  await live.sim.sendInboundKind({ kind: 'reply', from: CLIENT, body: 'About the old thread', contextId: 'wamid.NEVER-HERE-1' });
  // Before any file is sent (the media queue's downloads would take the scripted answer): a send the provider refused, then resent with Retry (server/messaging/README.md "Sending messages").
  live.sim.queueResponse({ status: 429 });
  await expect(live.staff.chat.send.mutate({ clientId, body: 'Your appointment is confirmed' })).rejects.toThrow();
  ids.failed = Number(
    (await sql<{ id: number }>(live.server.databaseUrl, `SELECT id FROM communications WHERE body = 'Your appointment is confirmed'`))[0]!
      .id,
  );
  ids.resent = (await live.staff.chat.retry.mutate({ id: ids.failed })).id;
  photoBytes = await sharp({ create: { width: 2400, height: 1600, channels: 3, background: { r: 200, g: 120, b: 40 } } })
    .jpeg()
    .toBuffer();
  await live.sim.sendInboundKind({ kind: 'image', from: CLIENT, bytesBase64: photoBytes.toString('base64'), mimeType: 'image/jpeg' });
  contractBytes = Buffer.from('%PDF-1.4 the signed contract, as the client sent it\n');
  await live.sim.sendInboundKind({
    kind: 'document',
    from: CLIENT,
    bytesBase64: contractBytes.toString('base64'),
    mimeType: 'application/pdf',
    fileName: 'contract.pdf',
  });
  await vi.waitFor(
    async () =>
      expect(
        await sql(
          live.server.databaseUrl,
          `SELECT 1 FROM attachments WHERE state = 'stored' AND mime_type IN ('image/jpeg', 'application/pdf')`,
        ),
      ).toHaveLength(2),
    { timeout: 15_000, interval: 50 },
  );
}, 60_000);
afterAll(() => live?.stop());

describe("the firm's clock", () => {
  it('is FIRM_TIME_ZONE until a director saves business hours, then the business hours’ zone', async () => {
    const headerWith = async (firmTimeZone: string) => {
      let seen: TExportHeader | null = null;
      await readExport({ scope: { type: 'client', id: clientId }, firm: 'F', user: staff, now: new Date(), firmTimeZone }, (header) => {
        seen = header;
        return Promise.resolve();
      });
      return seen!;
    };
    expect((await headerWith('America/New_York')).timeZone).toBe('America/New_York');
    await live.director.settings.setBusinessHours.mutate(TOKYO_HOURS);
    expect((await headerWith('America/New_York')).timeZone).toBe('Asia/Tokyo');
  });
});

describe('the PDF of a conversation', () => {
  let pdf: Awaited<ReturnType<typeof readPdf>>;
  let text: string;
  beforeAll(async () => {
    // The firm's hours name its zone (as the first test leaves them, when it runs).
    await live.director.settings.setBusinessHours.mutate(TOKYO_HOURS);
    pdf = await readPdf(await download(`client/${clientId}.pdf`));
    text = flat(pdf.pages.join('\n'));
  }, 30_000);

  it('writes times on the firm’s clock with UTC beside, the UTC date too when it is another day', () => {
    expect(text).toContain('Time zone: Asia/Tokyo');
    // 20:00:01 UTC on 1 March is 05:00:01 on 2 March in Tokyo (UTC+9, no summer time).
    expect(text).toContain('2 Mar 2026 05:00:01 GMT+9 (1 Mar 2026 20:00:01 UTC)');
    expect(text).not.toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/); // the old UTC-only form is gone
  });

  it('draws Greek, Cyrillic, Hebrew and Arabic as text a viewer reads in order', () => {
    for (const words of [
      'Καλημέρα σας, τα έγγραφα είναι έτοιμα',
      'Добрый день, документы готовы',
      'שלום המסמכים מוכנים',
      'مرحبا المستندات جاهزة',
    ])
      expect(text).toContain(words);
    const paragraph = pdf.pages
      .join('\n')
      .split('\n')
      .filter((line) => line.includes('המסמכים מוכנים לחתימה'));
    expect(paragraph.length).toBeGreaterThan(1); // it wrapped
    expect(text).toContain(HEBREW_PARAGRAPH);
  });

  it('shows hidden and direction-changing characters by their code, in the text and in file names', () => {
    expect(text).toContain('Pay into account[U+200B] 12345 and open [U+202E]fdp.exe');
    expect(text).toContain(
      "[U+202E]fdp.exe · application/octet-stream · file not held by the firm: the provider's copy could not be downloaded",
    );
    expect(text).not.toContain('\u202E');
    // A plain PDF is no bundle: nothing in it is "not in the bundle".
    expect(text).not.toContain('not in the bundle');
  });

  it('draws the photo scaled, captioned with its exhibit number, and lists other files with size and SHA-256', async () => {
    const [photo] = await sql<{ exhibit: string; sha256: string }>(
      live.server.databaseUrl,
      `SELECT sha256 FROM attachments WHERE mime_type = 'image/jpeg'`,
    );
    // Exhibits are numbered in the order the export lists them: the failed file came first.
    // The caption names the exhibit's file in a court bundle: a photo with no name is matched to exhibits/002-file.jpg.
    expect(text).toMatch(/Exhibit 2 · image, no file name · bundle file exhibits\/002-file\.jpg image\/jpeg · [\d,]+ bytes · SHA-256 /);
    expect(text).toContain(`SHA-256 ${photo!.sha256}`);
    const captioned = pdf.pages.findIndex((page) => flat(page).includes('Exhibit 2 · image, no file name · bundle file'));
    expect(pdf.images[captioned]).toBe(1); // painted on the page of its caption
    expect(pdf.images.reduce((a, b) => a + b, 0)).toBe(1);
    // The copy drawn is scaled to 1,200 pixels on its long side; the original's hash is the one listed.
    expect(pdf.raw).toMatch(/\/Subtype \/Image\n\/BitsPerComponent 8\n\/Width 1200\n\/Height 800/);
    expect(text).toContain(
      `Exhibit 3: contract.pdf · bundle file exhibits/003-contract.pdf · application/pdf · ${contractBytes.length.toLocaleString('en-GB')} bytes · SHA-256 ${sha256(contractBytes)}`,
    );
  });

  it('ends with an index of every exhibit, with the record each came with', () => {
    const index = flat(pdf.pages[pdf.pages.length - 1]!);
    expect(index).toContain('Exhibits');
    expect(index).toContain(
      `Exhibit 1: [U+202E]fdp.exe · application/octet-stream · file not held by the firm: the provider's copy could not be downloaded · record ${ids.scan},`,
    );
    expect(index).toMatch(
      /Exhibit 2: image, no file name · bundle file exhibits\/002-file\.jpg · image\/jpeg · [\d,]+ bytes · SHA-256 [0-9a-f]{64} · record \d+/,
    );
    expect(index).toContain(
      `Exhibit 3: contract.pdf · bundle file exhibits/003-contract.pdf · application/pdf · ${contractBytes.length.toLocaleString('en-GB')} bytes`,
    );
  });

  it("labels the firm's buttons and the client's choice, and quotes the question a reply answers", () => {
    expect(text).toContain('Can you come on Friday at 10? Offered buttons: [Yes] [No] [Call me]');
    expect(text).toMatch(
      new RegExp(
        `In reply to the firm, [^(]+\\([^)]+\\) \\(record ${ids.question}\\): “Can you come on Friday at 10\\?” Pressed the button “Yes”`,
      ),
    );
    expect(text).toMatch(
      new RegExp(
        `In reply to the firm, [^(]+\\([^)]+\\) \\(record ${ids.question}\\): “Can you come on Friday at 10\\?” I will bring the lease`,
      ),
    );
    expect(text).toContain('In reply to a message not in this record (provider id wamid.NEVER-HERE-1) About the old thread');
  });

  it('names the original of a resent copy', () => {
    expect(text).toMatch(new RegExp(`· Resent copy of record ${ids.failed} Your appointment is confirmed Record ${ids.resent} `));
  });

  it('numbers every page "Page N of M"', () => {
    expect(pdf.pages.length).toBeGreaterThanOrEqual(2);
    expect(pdf.pages.map((page) => /Page\s*(\d+)\s*of\s*(\d+)/.exec(page)?.slice(1).map(Number))).toEqual(
      pdf.pages.map((_page, i) => [i + 1, pdf.pages.length]),
    );
  });

  it('and the JSON export carries the same quotes, buttons, resends and zone', async () => {
    const body = JSON.parse((await download(`client/${clientId}.json`)).toString('utf8')) as {
      timeZone: string;
      messages: { id: number; body: string; quoted: unknown; buttons: unknown; resentFrom: number | null; replyTo: string | null }[];
    };
    expect(body.timeZone).toBe('Asia/Tokyo');
    const byBody = (text: string) => body.messages.find((m) => m.body === text)!;
    expect(byBody('Can you come on Friday at 10?').buttons).toEqual([
      { id: 'yes', title: 'Yes' },
      { id: 'no', title: 'No' },
      { id: 'call', title: 'Call me' },
    ]);
    expect(byBody('I will bring the lease').quoted).toEqual({
      id: ids.question,
      direction: 'outbound',
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/) as unknown,
      excerpt: 'Can you come on Friday at 10?',
    });
    expect(byBody('About the old thread')).toMatchObject({ replyTo: 'wamid.NEVER-HERE-1', quoted: null });
    expect(byBody('Your appointment is confirmed')).toBeDefined();
    expect(body.messages.find((m) => m.id === ids.resent)).toMatchObject({ resentFrom: ids.failed, buttons: null });
  });
});

describe('photos the firm does not hold', () => {
  it('each get a framed box where the photo would be, saying why in plain words', async () => {
    const gaps = await createClient({ name: 'Missing Photos', phone: '+447700900246' });
    await sql(
      live.server.databaseUrl,
      `WITH m AS (
         INSERT INTO communications (type, direction, body, status, client_id, peer_phone, metadata, receipts, created_at, updated_at)
         SELECT 'chat', 'inbound', 'Photo ' || g, NULL, $1, '447700900246', '{"kind": "image"}', '{}', now() + g * interval '1 second', now()
         FROM generate_series(1, 3) g RETURNING id, body)
       INSERT INTO attachments (communication_id, kind, mime_type, file_name, size, sha256, state, next_attempt_at, erased_at)
       SELECT id, 'image', 'image/jpeg', CASE body WHEN 'Photo 3' THEN NULL ELSE 'site.jpg' END,
              CASE body WHEN 'Photo 3' THEN 2048 END, CASE body WHEN 'Photo 3' THEN repeat('ab', 32) END,
              CASE body WHEN 'Photo 1' THEN 'pending' WHEN 'Photo 2' THEN 'failed' ELSE 'stored' END,
              CASE body WHEN 'Photo 1' THEN now() + interval '1 hour' END,
              CASE body WHEN 'Photo 3' THEN now() END
       FROM m`,
      [gaps.id],
    );
    const { pages, fills, strokes, dashes } = await readPdfDrawing(await download(`client/${gaps.id}.pdf`));
    const text = flat(pages.join('\n'));
    for (const [exhibit, why] of [
      [1, 'not yet downloaded from the provider when this record was made'],
      [2, "the provider's copy could not be downloaded"],
      [3, 'destroyed since it was received (for example under the retention policy)'],
    ] as const) {
      expect(text).toContain(`Photo not held by the firm (exhibit ${exhibit}) Exhibit ${exhibit}: `);
      expect(text).toContain(`image/jpeg · file not held by the firm: ${why}`);
    }
    expect(text).not.toContain('not in the bundle');
    // Three boxes: each a filled rectangle and a dashed frame, on the page of the messages.
    const page = pages.findIndex((content) => flat(content).includes('Photo not held by the firm (exhibit 1)'));
    expect(dashes[page]).toBe(3);
    expect([fills[page], strokes[page]]).toEqual([3, 3]);
  });
});

describe('phone numbers', () => {
  it('are never broken across lines', async () => {
    const many = await createClient({ name: 'Many Numbers', phone: '+447700900400' });
    await sql(
      live.server.databaseUrl,
      `INSERT INTO client_numbers (client_id, digits) SELECT $1, '4477009004' || lpad(g::text, 2, '0') FROM generate_series(1, 11) g`,
      [many.id],
    );
    await sql(
      live.server.databaseUrl,
      `INSERT INTO communications (type, direction, body, status, client_id, peer_phone, metadata, receipts, created_at, updated_at)
       VALUES ('chat', 'inbound', 'Which number is mine?', NULL, $1, '447700900400', '{}', '{}', now(), now())`,
      [many.id],
    );
    const { pages } = await readPdf(await download(`client/${many.id}.pdf`));
    const lines = pages.flatMap((page) => page.split('\n')).map((line) => line.replace(/\u00a0/g, ' '));
    const numbers = Array.from({ length: 12 }, (_, i) => `+44 7700 9004${String(i).padStart(2, '0')}`);
    // The subject line lists all twelve: it wraps, and each number is whole on one line.
    expect(lines.filter((line) => line.includes('+44 7700 9004')).length).toBeGreaterThan(1);
    expect(numbers.filter((number) => !lines.some((line) => line.includes(number)))).toEqual([]);
  });
});

describe('quotes respect the record and the walls', () => {
  it('quotes at most 200 characters, and never a message outside the export; a reply to a message behind a wall reads as no reply at all', async () => {
    const walled = await createClient({ name: 'Quoted Client', phone: '+447700900654' });
    const hidden = await createCase({ clientId: walled.id, reference: 'QC-1', title: 'Sealed matter' });
    const open = await createCase({ clientId: walled.id, reference: 'QC-2', title: 'Open matter' });
    const long = `${'a'.repeat(250)} end`;
    await sql(
      live.server.databaseUrl,
      `INSERT INTO communications (type, direction, body, status, client_id, case_id, peer_phone, metadata, receipts, created_at, updated_at) VALUES
         ('chat', 'outbound', $3, 'sent', $1, NULL, '447700900654', '{"chat_msg_id":"wamid.Q-LONG"}', '{}', now(), now()),
         ('chat', 'outbound', 'The sealed question', 'sent', $1, $2, '447700900654', '{"chat_msg_id":"wamid.Q-SEALED"}', '{}', now(), now()),
         ('chat', 'inbound', 'Answer to the long one', NULL, $1, NULL, '447700900654', '{"chat_msg_id":"wamid.A-1","context_id":"wamid.Q-LONG"}', '{}', now() + interval '1 second', now()),
         ('chat', 'inbound', 'Answer to the sealed one', NULL, $1, NULL, '447700900654', '{"chat_msg_id":"wamid.A-2","context_id":"wamid.Q-SEALED"}', '{}', now() + interval '2 seconds', now()),
         ('chat', 'inbound', 'Answer on the open case', NULL, $1, $4, '447700900654', '{"chat_msg_id":"wamid.A-3","context_id":"wamid.Q-LONG"}', '{}', now() + interval '3 seconds', now())`,
      [walled.id, hidden.id, long, open.id],
    );
    // A send on the sealed case that failed, and a copy of it the exporter may see; a copy of a record that is gone.
    const [sealedFailure] = await sql<{ id: number }>(
      live.server.databaseUrl,
      `INSERT INTO communications (type, direction, body, status, client_id, case_id, peer_phone, metadata, receipts, created_at, updated_at)
       VALUES ('chat', 'outbound', 'The sealed offer', 'failed', $1, $2, '447700900654', '{}', '{}', now() + interval '4 seconds', now()) RETURNING id`,
      [walled.id, hidden.id],
    );
    await sql(
      live.server.databaseUrl,
      `INSERT INTO communications (type, direction, body, status, client_id, case_id, peer_phone, metadata, receipts, created_at, updated_at) VALUES
         ('chat', 'outbound', 'The offer, sent again', 'sent', $1, NULL, '447700900654', jsonb_build_object('retry_of', $2::int), '{}', now() + interval '5 seconds', now()),
         ('chat', 'outbound', 'A copy of a record erased since', 'sent', $1, NULL, '447700900654', '{"retry_of": 2147483000}', '{}', now() + interval '6 seconds', now())`,
      [walled.id, sealedFailure!.id],
    );
    // The sealed case is restricted and the exporting member of staff is not one of its members (server/access/README.md "Ethical walls").
    await sql(live.server.databaseUrl, `UPDATE cases SET restricted = true WHERE id = $1`, [hidden.id]);
    type TMessage = { body: string; replyTo: string | null; quoted: { excerpt: string } | null; resentFrom: number | null };
    const body = JSON.parse((await download(`client/${walled.id}.json`)).toString('utf8')) as { messages: TMessage[] };
    const byBody = (messages: TMessage[], text: string) => messages.find((m) => m.body === text)!;
    expect(body.messages.map((m) => m.body)).not.toContain('The sealed question');
    const excerpt = byBody(body.messages, 'Answer to the long one').quoted!.excerpt;
    expect([...excerpt]).toHaveLength(200);
    expect(excerpt).toBe(`${'a'.repeat(199)}…`);
    // The sealed question exists, behind the wall: the answer to it names nothing, as if it answered nothing.
    expect(byBody(body.messages, 'Answer to the sealed one')).toMatchObject({ replyTo: null, quoted: null });
    expect(byBody(body.messages, 'The offer, sent again')).toMatchObject({ resentFrom: null });
    // What is not stored at all is named as it was: nothing of a wall is given away by it.
    expect(byBody(body.messages, 'A copy of a record erased since')).toMatchObject({ resentFrom: 2147483000 });
    const raw = (await download(`client/${walled.id}.json`)).toString('utf8');
    expect(raw).not.toContain('wamid.Q-SEALED');
    expect(raw).not.toContain(`"resentFrom":${sealedFailure!.id}`);

    const text = flat((await readPdf(await download(`client/${walled.id}.pdf`))).pages.join('\n'));
    expect(text).not.toContain('The sealed question');
    expect(text).not.toContain('wamid.Q-SEALED');
    expect(text).not.toContain(`Resent copy of record ${sealedFailure!.id}`);
    // Its heading runs straight into its text: no line about what it answers.
    expect(text).toContain('From the client · +44 7700 900654 Answer to the sealed one');
    expect(text).toContain('Resent copy of record 2147483000');
    expect(await idOf('wamid.Q-SEALED')).toBeGreaterThan(0); // it exists: the wall, not its absence, kept it out

    // A message the exporter may see, outside this export (a case's): named, and said to be not in this record.
    const onCase = JSON.parse((await download(`case/${open.id}.json`)).toString('utf8')) as { messages: TMessage[] };
    expect(byBody(onCase.messages, 'Answer on the open case')).toMatchObject({ replyTo: 'wamid.Q-LONG', quoted: null });
    const caseText = flat((await readPdf(await download(`case/${open.id}.pdf`))).pages.join('\n'));
    expect(caseText).toContain('In reply to a message not in this record (provider id wamid.Q-LONG) Answer on the open case');
  });
});

describe('pages', () => {
  it('never splits a message that fits on a page; one longer than a page runs on, complete and in order', async () => {
    const long = await createClient({ name: 'Long Letters', phone: '+447700900987' });
    const letter = (k: number) => [`L${k}-first`, ...Array.from({ length: 28 }, (_, i) => `L${k} line ${i + 2}`), `L${k}-last`].join('\n');
    const huge = Array.from({ length: 140 }, (_, i) => `Huge line ${i + 1}`).join('\n');
    const bodies = [1, 2, 3, 4, 5, 6].flatMap((k) => [`Short note ${k}`, letter(k)]).concat([huge, 'After the huge one']);
    await sql(
      live.server.databaseUrl,
      `INSERT INTO communications (type, direction, body, status, client_id, peer_phone, metadata, receipts, created_at, updated_at)
       SELECT 'chat', 'inbound', b.body, NULL, $1, '447700900987', '{}', '{}', now() + b.n * interval '1 second', now()
       FROM unnest($2::text[]) WITH ORDINALITY AS b(body, n)`,
      [long.id, bodies],
    );
    const { pages } = await readPdf(await download(`client/${long.id}.pdf`));
    const pageOf = (marker: string) => pages.findIndex((page) => page.split('\n').some((line) => line.trim() === marker));
    for (const k of [1, 2, 3, 4, 5, 6]) {
      expect(pageOf(`L${k}-first`)).toBeGreaterThanOrEqual(0);
      expect([k, pageOf(`L${k}-last`)]).toEqual([k, pageOf(`L${k}-first`)]);
    }
    const hugeLines = pages
      .join('\n')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line.startsWith('Huge line '));
    expect(hugeLines).toEqual(Array.from({ length: 140 }, (_, i) => `Huge line ${i + 1}`));
    expect(pageOf('Huge line 140')).toBeGreaterThan(pageOf('Huge line 1'));
    expect(pages.map((page) => /Page\s*(\d+)\s*of\s*(\d+)/.exec(page)?.slice(1).map(Number))).toEqual(
      pages.map((_page, i) => [i + 1, pages.length]),
    );
  }, 30_000);
});
