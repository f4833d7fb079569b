import { createReadStream } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openChatExport, readLines } from '../../server/imports/chat-export-file';
import { instantOfWritten } from '../../server/imports/date-order';
import { readChatMessages, summarizeExport, type TChatMessage } from '../../server/imports/read-chat-messages';
import { zipOf } from '../support/zip-entries';

// The team's corpus (tests/fixtures/whatsapp-exports): one conversation exported from Android and
// iOS phones set to English (UK, US), German, Spanish, French and Portuguese (Brazil), 12- and
// 24-hour clocks. Every file must read to the same messages.

const CORPUS = path.join(__dirname, '../fixtures/whatsapp-exports');
const ZONE = 'Europe/London';
const NOW = new Date('2026-11-30T12:00:00Z');

const EXPECTED = [
  { at: '2026-02-12T09:06', sender: 'Anna Client', kind: 'text', text: 'Hello, I have a question about the lease.' },
  { at: '2026-02-12T09:41', sender: 'Sam Lawyer', kind: 'text', text: 'Of course.\nSend me the contract, please.' },
  { at: '2026-02-12T10:02', sender: 'Anna Client', kind: 'file', text: 'lease.pdf' },
  { at: '2026-02-12T10:03', sender: 'Anna Client', kind: 'omitted', text: '' },
  { at: '2026-02-12T21:15', sender: 'Sam Lawyer', kind: 'text', text: 'Thanks: I will read it tonight (edited)' },
  { at: '2026-02-13T08:00', sender: 'Anna Client', kind: 'deleted', text: '' },
  { at: '2026-02-13T14:30', sender: 'Anna Client', kind: 'text', text: '13:00 works – see you then 👍' },
];

async function messagesOf(file: string): Promise<TChatMessage[]> {
  const out: TChatMessage[] = [];
  for await (const message of readChatMessages(readLines(createReadStream(file)))) out.push(message);
  return out;
}

const plain = (message: TChatMessage, order: 'DMY' | 'MDY') => ({
  at: instantOfWritten(message.time, order, ZONE)!.toISOString().slice(0, 16),
  sender: message.sender,
  kind: message.content.kind,
  text:
    message.content.kind === 'text'
      ? message.content.text + (message.content.edited ? ' (edited)' : '')
      : message.content.kind === 'file'
        ? message.content.fileName
        : '',
});

describe('the corpus: every format reads to the same messages', async () => {
  const files = (await readdir(CORPUS)).filter((name) => name.endsWith('.txt')).sort();
  it('has Android and iOS exports in English (UK, US), German, Spanish, French and Portuguese, 12- and 24-hour', () => {
    for (const want of ['en-GB', 'en-US', 'de-DE', 'es-ES', 'fr-FR', 'pt-BR']) expect(files.some((f) => f.includes(want))).toBe(true);
    expect(files.filter((f) => f.startsWith('ios-')).length).toBeGreaterThanOrEqual(5);
    expect(files.filter((f) => f.startsWith('android-')).length).toBeGreaterThanOrEqual(5);
    expect(files.some((f) => f.endsWith('12h.txt'))).toBe(true);
  });

  it.each(files)('%s', async (name) => {
    const chat = await openChatExport(path.join(CORPUS, name));
    const summary = await summarizeExport(chat, ZONE, NOW);
    const order = name.includes('en-US') ? 'MDY' : 'DMY';
    expect(summary).toMatchObject({
      dateOrder: order,
      ambiguous: false,
      messages: 7,
      system: 1,
      // A bare .txt has none of its files: the PDF is missing too.
      attachments: 0,
      missingMedia: 2,
      participants: [
        { name: 'Anna Client', messages: 5 },
        { name: 'Sam Lawyer', messages: 2 },
      ],
      firstAt: '2026-02-12T09:06:' + (name.startsWith('ios') ? '12.000Z' : '00.000Z'),
    });
    const messages = (await messagesOf(path.join(CORPUS, name))).filter((m) => m.content.kind !== 'system');
    expect(messages.map((m) => plain(m, order))).toEqual(EXPECTED);
    // Where each message starts in the file: the second message spans two lines.
    expect(messages.map((m) => m.line)).toEqual([2, 3, 5, 6, 7, 8, 9]);
  });
});

describe('the date order', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'chat-export-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));
  const write = async (name: string, text: string | Buffer) => {
    const file = path.join(dir, name);
    await writeFile(file, text);
    return file;
  };

  it('every day 12 or less: the order that keeps time moving forward, said to be a guess', async () => {
    // Month-first: 3 Jan, 5 Jan, 1 Feb; day-first it would be 1 Mar, 1 May, 2 Jan — time running backwards.
    const text = ['01/03/2026, 10:00 - A: one', '01/05/2026, 10:00 - B: two', '02/01/2026, 10:00 - A: three'].join('\n');
    const summary = await summarizeExport(await openChatExport(await write('mdy.txt', text)), ZONE, NOW);
    expect(summary).toMatchObject({ dateOrder: 'MDY', ambiguous: true, firstAt: '2026-01-03T10:00:00.000Z' });
    const same = ['05/05/2026, 10:00 - A: one', '05/05/2026, 11:00 - B: two'].join('\n');
    expect(await summarizeExport(await openChatExport(await write('same.txt', same)), ZONE, NOW)).toMatchObject({ ambiguous: true });
  });

  it('times are read on the firm clock, summer time included', async () => {
    const text = '[29/07/2026, 09:14:03] A: summer';
    const summary = await summarizeExport(await openChatExport(await write('summer.txt', text)), ZONE, NOW);
    expect(summary.firstAt).toBe('2026-07-29T08:14:03.000Z');
  });

  it('two orders in one file are not one phone’s export', async () => {
    const text = ['13/01/2026, 10:00 - A: one', '01/14/2026, 10:00 - B: two'].join('\n');
    await expect(summarizeExport(await openChatExport(await write('two.txt', text)), ZONE, NOW)).rejects.toThrow(/two different orders/);
  });

  it('refuses what is not a chat, invalid UTF-8 and endless lines, each with a sentence', async () => {
    await expect(summarizeExport(await openChatExport(await write('notes.txt', 'a\nb\nc\nd\ne\nf\ng\n')), ZONE, NOW)).rejects.toThrow(
      /not a WhatsApp chat export/,
    );
    const bad = Buffer.concat([Buffer.from('12/02/2026, 10:00 - A: caf'), Buffer.from([0xc3, 0x28]), Buffer.from('\n')]);
    await expect(summarizeExport(await openChatExport(await write('bad.txt', bad)), ZONE, NOW)).rejects.toThrow(
      /Line 1 of the chat is not valid UTF-8/,
    );
    const long = `12/02/2026, 10:00 - A: ${'x'.repeat(10 * 1024 * 1024)}`;
    await expect(summarizeExport(await openChatExport(await write('long.txt', long)), ZONE, NOW)).rejects.toThrow(
      /over a million characters/,
    );
  });

  it('refuses a ZIP bomb and a ZIP naming files outside itself, before unpacking them', async () => {
    const chat = Buffer.from('12/02/2026, 10:00 - A: hello\n');
    const bomb = await zipOf([
      ['_chat.txt', chat],
      ['IMG-1.jpg', Buffer.alloc(50 * 1024 * 1024)],
    ]);
    await expect(openChatExport(await write('bomb.zip', bomb))).rejects.toThrow(/ZIP bomb/);
    // yazl will not write `..`: the same-length name is patched in, in both of the ZIP's headers.
    const zipped = await zipOf([
      ['_chat.txt', chat],
      ['xx/evil.jpg', Buffer.from('not a photo')],
    ]);
    const traversal = Buffer.from(zipped.toString('latin1').replaceAll('xx/evil.jpg', '../evil.jpg'), 'latin1');
    await expect(openChatExport(await write('traversal.zip', traversal))).rejects.toThrow(/outside itself/);
  });

  it('refuses a ZIP unpacking to far more than its size, though no one entry is a bomb, and one of two chats', async () => {
    const chat = Buffer.from('12/02/2026, 10:00 - A: hello\n');
    const entries: [string, Buffer][] = [['_chat.txt', chat]];
    for (let i = 0; i < 70; i++) entries.push([`IMG-${i}.jpg`, Buffer.alloc(1024 * 1024)]);
    await expect(openChatExport(await write('many.zip', await zipOf(entries)))).rejects.toThrow(/ZIP bomb/);
    const two = await zipOf([
      ['a/_chat.txt', chat],
      ['b/_chat.txt', chat],
    ]);
    await expect(openChatExport(await write('two-chats.zip', two))).rejects.toThrow(/more than one chat/);
  });

  it('names the line of a bad byte, drops NUL characters, and refuses a date that is no day', async () => {
    const text = Buffer.concat([
      Buffer.from('12/02/2026, 10:00 - A: one\n12/02/2026, 10:01 - B: t\u0000wo\n12/02/2026, 10:02 - A: caf'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('\n'),
    ]);
    await expect(summarizeExport(await openChatExport(await write('bad3.txt', text)), ZONE, NOW)).rejects.toThrow(/^Line 3 of the chat/);
    const lines: string[] = [];
    for await (const line of readLines(Readable.from([Buffer.from('a\u0000b\r\nc')]))) lines.push(line);
    expect(lines).toEqual(['ab', 'c']);
    const noDay = '13/01/2026, 10:00 - A: one\n31/02/2026, 10:00 - B: two\n';
    await expect(summarizeExport(await openChatExport(await write('noday.txt', noDay)), ZONE, NOW)).rejects.toThrow(
      /Line 2 has a date that is no day/,
    );
  });

  it('never reads a date into the future: the other reading, or a refusal', async () => {
    // Day first, 5 December 2026 is after "now" (30 November 2026); month first, 12 May 2026 is not.
    const either = '01/11/2026, 10:00 - A: one\n05/12/2026, 10:00 - B: two\n';
    expect(await summarizeExport(await openChatExport(await write('future-dmy.txt', either)), ZONE, NOW)).toMatchObject({
      dateOrder: 'MDY',
      ambiguous: false,
    });
    const future = '13/12/2027, 10:00 - A: later\n';
    await expect(summarizeExport(await openChatExport(await write('future.txt', future)), ZONE, NOW)).rejects.toThrow(/dated after today/);
  });

  it('offers both readings of an ambiguous export', async () => {
    const text = ['01/03/2026, 10:00 - A: one', '01/05/2026, 10:00 - B: two'].join('\n');
    const summary = await summarizeExport(await openChatExport(await write('readings.txt', text)), ZONE, NOW);
    expect(summary.readings).toEqual({
      DMY: { firstAt: '2026-03-01T10:00:00.000Z', lastAt: '2026-05-01T09:00:00.000Z' },
      MDY: { firstAt: '2026-01-03T10:00:00.000Z', lastAt: '2026-01-05T10:00:00.000Z' },
    });
  });

  it('reads a ZIP: its chat text and the files the chat names', async () => {
    const zipped = await zipOf([
      [
        'WhatsApp Chat with Anna Client.txt',
        Buffer.from(
          '12/02/2026, 10:00 - Anna Client: IMG-1.jpg (file attached)\n12/02/2026, 10:01 - Anna Client: VID-2.mp4 (file attached)\n',
        ),
      ],
      ['IMG-1.jpg', Buffer.from('jpeg bytes')],
    ]);
    const summary = await summarizeExport(await openChatExport(await write('export.zip', zipped)), ZONE, NOW);
    expect(summary).toMatchObject({ messages: 2, attachments: 1, missingMedia: 1 });
  });
});
