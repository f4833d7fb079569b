import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createClient } from '../../server/crm/clients';
import { startLiveSetup, type TLiveSetup } from '../support/live-setup';
import { sql } from '../support/webhook';

// The inbox row shows the client's last words, not the automatic out-of-hours reply that followed
// them (server/messaging/README.md "Business hours"); the conversation still moves up when the reply is sent.

let live: TLiveSetup;
const REPLY = 'Our office is closed: we will answer when we open.';
const FIRM_ZONE = 'Europe/London';

/** The firm's ISO weekday now. */
const firmDay = (): number =>
  ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'].indexOf(
    new Intl.DateTimeFormat('en-GB', { timeZone: FIRM_ZONE, weekday: 'short' }).format(new Date()),
  ) + 1;

beforeAll(async () => {
  live = await startLiveSetup();
  // Open only the day after tomorrow: closed now, and still closed if midnight passes meanwhile.
  await live.director.settings.setBusinessHours.mutate({
    timeZone: FIRM_ZONE,
    week: [{ day: ((firmDay() + 1) % 7) + 1, opens: '09:00', closes: '17:00' }],
    closedDates: [],
    autoReply: REPLY,
  });
});
afterAll(() => live?.stop());

/** The automatic reply to `digits` is stored (it follows the inbound through the send queue). */
const autoReplyStored = async (digits: string): Promise<{ id: number }> => {
  let found: { id: number } | undefined;
  await vi.waitFor(
    async () => {
      [found] = await sql<{ id: number }>(
        live.server.databaseUrl,
        "SELECT id FROM communications WHERE peer_phone = $1 AND metadata ? 'auto_reply'",
        [digits],
      );
      expect(found).toBeDefined();
    },
    { timeout: 20_000, interval: 100 },
  );
  return found!;
};

describe('the inbox row after an automatic reply', () => {
  it('shows the client’s question, for a client’s conversation and for an unknown number', async () => {
    const client = await createClient({ name: 'Rowena Quill', phone: '+44 7700 900461' });
    const unknown = '447700900462';
    for (const n of ['447700900461', unknown]) live.sim.markInbound(n);
    expect((await live.sim.sendInbound('447700900461', 'Can you call me about the lease?')).status).toBe(200);
    expect((await live.sim.sendInbound(unknown, 'Who handles probate?')).status).toBe(200);
    const [clientReply, unknownReply] = [await autoReplyStored('447700900461'), await autoReplyStored(unknown)];

    const { threads } = await live.staff.inbox.threads.query({});
    const byClient = threads.find((t) => t.clientId === client.id);
    const byNumber = threads.find((t) => t.clientId === null && t.phone === unknown);
    expect(byClient?.last).toMatchObject({ body: 'Can you call me about the lease?', direction: 'inbound' });
    expect(byNumber?.last).toMatchObject({ body: 'Who handles probate?', direction: 'inbound' });
    // Both replies were sent after both questions: the conversations are listed by the reply's
    // time (the last one answered first), whatever the row shows.
    const order = threads.map((t) => t.key).filter((k) => k === byClient!.key || k === byNumber!.key);
    expect(order).toEqual(clientReply.id > unknownReply.id ? [byClient!.key, byNumber!.key] : [byNumber!.key, byClient!.key]);
  });
});
