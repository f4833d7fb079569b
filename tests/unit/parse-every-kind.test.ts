import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parsePayload } from '../../server/webhook/parse-payload';
import { match } from '../support/matchers';

// The real payloads (tests/fixtures/peer-webhooks, MIT): what each kind becomes.
const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/peer-webhooks');
const corpus = (file: string, name: string) =>
  (JSON.parse(readFileSync(path.join(FIXTURES, file), 'utf8')) as Record<string, unknown>)[name];
const now = new Date('2026-01-01T00:00:00Z');
// The number each item was sent to is the route step's (tested below and in firm-numbers.test.ts): left out here.
const parse = (file: string, name: string) => {
  const parsed = parsePayload(corpus(file, name), now);
  for (const list of [parsed.messages, parsed.updates, parsed.receipts, parsed.preferences]) for (const item of list) delete item.sentTo;
  return parsed;
};

describe('the firm number an item was sent to', () => {
  it('is read from the change’s metadata for every item of that change, digits normalised; a payload without it names none', () => {
    const parsed = parsePayload(corpus('message.json', 'reaction'), now);
    expect(parsed.updates.map((u) => u.sentTo)).toEqual([{ digits: '972123456789', phoneNumberId: '1122334455667' }]);
    const onPremise = parsePayload(
      { messages: [{ from: '447700900123', id: 'wamid.x', timestamp: '1763700000', type: 'text', text: { body: 'hi' } }] },
      now,
    );
    expect(onPremise.messages.map((m) => m.sentTo)).toEqual([undefined]);
  });
});

describe('every kind of message a client sends', () => {
  it('a photo becomes a record with its caption (none here) and a pending file to download', () => {
    const [message] = parse('message.json', 'image').messages;
    expect(message).toMatchObject({ kind: 'image', body: '', direction: 'inbound', peerPhone: '972987654321' });
    expect(message?.attachment).toEqual({
      kind: 'image',
      providerMediaId: '65463453',
      mimeType: 'image/jpeg',
      fileName: null,
      expectedSha256: '4654+8g=',
    });
    expect(message?.extra).toEqual({ kind: 'image' });
  });

  it('a document keeps its caption, file name and type; a forwarded one says so', () => {
    const [message] = parse('message.json', 'document').messages;
    expect(message).toMatchObject({ kind: 'document', body: 'caption' });
    expect(message?.attachment).toMatchObject({
      kind: 'document',
      fileName: 'filename.pdf',
      mimeType: 'application/pdf',
      providerMediaId: '1234567890987654321',
    });
    expect(message?.extra).toEqual({ kind: 'document', forwarded: true });
  });

  it('a voice note is audio marked voice; stickers, video and audio carry their files', () => {
    expect(parse('message.json', 'voice').messages[0]).toMatchObject({
      kind: 'audio',
      extra: { kind: 'audio', voice: true },
      attachment: { kind: 'audio', mimeType: 'audio/ogg; codecs=opus' },
    });
    expect(parse('message.json', 'audio').messages[0]?.extra.voice).toBeUndefined();
    expect(parse('message.json', 'static_sticker').messages[0]).toMatchObject({
      kind: 'sticker',
      attachment: { kind: 'sticker', mimeType: 'image/webp' },
    });
    expect(parse('message.json', 'video').messages[0]).toMatchObject({
      kind: 'video',
      body: 'caption',
      attachment: { kind: 'video', mimeType: 'video/mp4' },
    });
  });

  it('a location names the place and its coordinates', () => {
    const [chosen] = parse('message.json', 'chosen_location').messages;
    expect(chosen?.body).toBe('Location: Facebook HQ, 1 Hacker Way, Menlo Park, CA 94025 (37.4611978, -122.2164385)');
    expect(chosen?.extra.location).toEqual({
      latitude: 37.4611978,
      longitude: -122.2164385,
      name: 'Facebook HQ',
      address: '1 Hacker Way, Menlo Park, CA 94025',
      url: 'https://maps.google.com/?cid=2000000000000000000',
    });
    expect(parse('message.json', 'current_location').messages[0]?.body).toBe('Location: 12.25089, 43.90539');
  });

  it('shared contacts list their names and numbers', () => {
    const [message] = parse('message.json', 'contacts').messages;
    expect(message?.body).toBe('Contacts:\nChandler Bing: +1 555-555-5555\nMonica: +1 666-666-6666\nRachel Green: +1 777-777-7777');
    expect(message?.extra.contacts?.[0]).toEqual({ name: 'Chandler Bing', phones: ['+1 555-555-5555'] });
  });

  it('button and list replies keep the chosen title and the message they answer', () => {
    expect(parse('callback_button.json', 'button').messages[0]).toMatchObject({
      kind: 'button',
      body: 'title',
      extra: { kind: 'button', context_id: 'wamid.xyzxyz' },
    });
    expect(parse('callback_button.json', 'quick_reply').messages[0]).toMatchObject({
      kind: 'button',
      body: 'title',
      extra: { context_id: 'wamid.xyzxyz==' },
    });
    expect(parse('callback_button.json', 'quick_reply_without_context').messages[0]?.extra.context_id).toBeUndefined();
    expect(parse('callback_selection.json', 'description').messages[0]).toMatchObject({
      kind: 'list',
      body: 'title',
      extra: { kind: 'list', context_id: 'wamid.xyzxyz' },
    });
  });

  it('a reply keeps the id of the message it quotes', () => {
    expect(parse('message.json', 'reply').messages[0]).toMatchObject({
      kind: 'text',
      body: 'replied text',
      extra: { context_id: 'wamid.xyzxyz==' },
    });
  });

  it('reactions, edits and deletions are updates of another record, not new records', () => {
    const reaction = parse('message.json', 'reaction');
    expect(reaction.messages).toEqual([]);
    expect(reaction.updates).toEqual([
      {
        type: 'reaction',
        targetId: 'wamid.yzxyzx=',
        peerPhone: '972987654321',
        from: '972987654321',
        emoji: '😮',
        at: new Date(1697044456_000),
      },
    ]);
    expect(parse('message.json', 'unreaction_no_emoji').updates[0]).toMatchObject({ type: 'reaction', emoji: '' });
    expect(parse('edited_message.json', 'image').updates).toEqual([
      {
        type: 'edit',
        updateId: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQUFERjg0NDEzNDdFODU3MUMxMAA=',
        targetId: 'wamid.HBgLMTQxMjU1NTA4MjkVAgASGBQzQUNCNjk5RDUwNUZGMUZEM0VBRAA=',
        peerPhone: '16505551234',
        direction: 'inbound',
        body: 'Updated image caption',
        at: new Date(1749854575_000),
      },
    ]);
    // The corpus's deletion comes from a placeholder, not a number: it can be no one's conversation.
    expect(parse('deleted_message.json', 'revoke')).toMatchObject({ received: 1, messages: [], updates: [] });
  });

  it("echoes from the firm's phone are outbound records to the recipient; their edits and deletions are the firm's", () => {
    const edit = parse('outgoing_message.json', 'edit');
    expect(edit.received).toBe(1);
    expect(edit.updates).toEqual([
      {
        type: 'edit',
        updateId: 'wamid.yyyyyy',
        targetId: 'wamid.zzzzzz',
        peerPhone: '972123456789',
        direction: 'outbound',
        body: 'Text was edited',
        at: new Date(1697044968_000),
      },
    ]);
    expect(parse('outgoing_message.json', 'delete').updates[0]).toMatchObject({
      type: 'revoke',
      direction: 'outbound',
      peerPhone: '972123456789',
    });
    const echo = parsePayload(
      {
        entry: [
          {
            changes: [
              {
                field: 'smb_message_echoes',
                value: {
                  message_echoes: [
                    {
                      from: '442079460000',
                      to: '447700900123',
                      id: 'wamid.echo1',
                      timestamp: '1697043223',
                      type: 'text',
                      text: { body: 'From the office phone' },
                    },
                  ],
                },
              },
            ],
          },
        ],
      },
      now,
    );
    expect(echo.messages).toEqual([
      match.objectContaining({
        chatMsgId: 'wamid.echo1',
        direction: 'outbound',
        peerPhone: '447700900123',
        body: 'From the office phone',
        contactName: null,
        extra: { echo: true },
      }),
    ]);
  });

  it('a media id that could walk the provider path (.., /, ?) is never used; the message and its caption are kept', () => {
    for (const id of ['..', '../profile', 'a/b', 'x?y=1', '.hidden', '', 42]) {
      const parsed = parsePayload(
        {
          messages: [{ from: '447700900123', id: 'wamid.m', type: 'image', image: { id, mime_type: 'image/jpeg', caption: 'the letter' } }],
        },
        now,
      );
      expect(parsed.messages, String(id)).toEqual([
        match.objectContaining({ body: 'the letter', attachment: match.objectContaining({ providerMediaId: null }) }),
      ]);
    }
  });

  it('orders, unsupported types and broken interactive items are counted, not stored', () => {
    for (const name of ['order', 'unsupported', 'unsupported_with_type', 'interactive_message_with_err']) {
      const parsed = parse('message.json', name);
      expect(parsed.received, name).toBe(1);
      expect(parsed.messages, name).toEqual([]);
      expect(parsed.updates, name).toEqual([]);
    }
  });
});
