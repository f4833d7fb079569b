import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startLiveSetup, type TLiveSetup } from '../support/live-setup';
import { cloudPayload, postWebhook, sql, textMessage } from '../support/webhook';

// A number as the provider writes it (E.164 digits without "+") is a number the firm can answer,
// even where libphonenumber does not place it: WhatsApp still writes Mexican mobiles as 52 1 + ten
// digits, which the number plan dropped.

let live: TLiveSetup;
const sentTo = () => live.sim.requests.filter((r) => r.path.endsWith('/messages')).map((r) => (r.body as { to: string }).to);

beforeAll(async () => {
  live = await startLiveSetup();
});
afterAll(() => live?.stop());
beforeEach(() => {
  live.sim.requests.length = 0;
});

describe('a reply to an unlinked number as the provider wrote it', () => {
  it('goes to a Mexican mobile that wrote as 52 1 + ten digits, filed with its messages', async () => {
    const from = '5215512345678';
    await postWebhook(live.server.url, cloudPayload({ messages: [textMessage('wamid.mx-legacy-1', from, 'Hola, ¿me pueden llamar?')] }));
    const sent = await live.staff.chat.send.mutate({ to: from, body: 'Le llamamos a las 3.' });
    expect(sent).toMatchObject({ status: 'sent' });
    expect(sentTo()).toEqual([from]);
    const rows = await sql<{ direction: string; peer_phone: string | null }>(
      live.server.databaseUrl,
      'SELECT direction, peer_phone FROM communications WHERE body IN ($1, $2) ORDER BY id',
      ['Hola, ¿me pueden llamar?', 'Le llamamos a las 3.'],
    );
    expect(rows).toEqual([
      { direction: 'inbound', peer_phone: from },
      { direction: 'outbound', peer_phone: from },
    ]);
  });
});
