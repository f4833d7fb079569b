import { afterAll, beforeAll, expect, it, onTestFinished } from 'vitest';
import { createClient } from '../../server/crm/clients';
import { ensureSearchLanguage } from '../../server/core/db/search-column';
import { createSequelize } from '../../server/core/db/sequelize';
import { createLogger } from '../../server/core/logger';
import { HIGHLIGHT_START, HIGHLIGHT_STOP, SEARCH_WINDOW, searchMessages } from '../../server/inbox/search-messages';
import { sql } from '../support/sql';
import { UNWALLED_READER } from '../support/readers';
import { startLiveSetup, type TLiveSetup } from '../support/live-setup';
import { match } from '../support/matchers';

// Full-text search over chat records: words, stems, the person's own query syntax,
// best match first, matching words marked.
let live: TLiveSetup;
beforeAll(async () => {
  live = await startLiveSetup();
  await createClient({ name: 'Amelia Hart', phone: '+447700900123' });
  for (const body of [
    'The letting agent kept my deposit again',
    'Could you send the invoices for March and April?',
    'Deposit deposit deposit: they still have not returned the deposit',
    'See you on Tuesday',
  ]) {
    await live.sim.sendInboundKind({ kind: 'text', from: '447700900123', body });
  }
  await live.sim.sendInboundKind({ kind: 'text', from: '447700900999', body: 'A stranger asking about a deposit' });
});
afterAll(() => live?.stop());

const marked = (text: string) => text.replaceAll(HIGHLIGHT_START, '[').replaceAll(HIGHLIGHT_STOP, ']');

it('finds messages by their words across conversations, linked or not, the best match first', async () => {
  const { items } = await live.staff.inbox.search.query({ q: 'deposit' });
  expect(items.map((i) => i.body)).toEqual([
    'Deposit deposit deposit: they still have not returned the deposit',
    match.any(String),
    match.any(String),
  ]);
  expect(items.filter((i) => i.clientName === 'Amelia Hart')).toHaveLength(2);
  expect(items.filter((i) => i.clientName === null && i.peerPhone === '447700900999')).toHaveLength(1);
  expect(marked(items[0]!.highlight)).toContain('[Deposit] [deposit] [deposit]');
});

it('matches stems (invoice finds invoices) and the query syntax people type', async () => {
  expect((await live.staff.inbox.search.query({ q: 'invoice' })).items.map((i) => marked(i.highlight))).toEqual([
    match.stringContaining('[invoices]'),
  ]);
  expect((await live.staff.inbox.search.query({ q: '"letting agent"' })).items.map((i) => i.body)).toEqual([
    'The letting agent kept my deposit again',
  ]);
  expect((await live.staff.inbox.search.query({ q: 'deposit -stranger -letting' })).items.map((i) => i.body)).toEqual([
    'Deposit deposit deposit: they still have not returned the deposit',
  ]);
  expect((await live.staff.inbox.search.query({ q: 'nothing-like-this' })).items).toEqual([]);
});

it('hostile queries are just words: no error, no injection', async () => {
  for (const q of ["'; DROP TABLE communications; --", '&&&|||!!!', '(((', 'a:*', '\\']) {
    await expect(live.staff.inbox.search.query({ q })).resolves.toMatchObject({ items: match.any(Array) });
  }
  await expect(live.staff.inbox.search.query({ q: '   ' })).rejects.toMatchObject({ data: { code: 'BAD_REQUEST' } });
});

it('a message holding the highlight marks themselves cannot mark words of its own', async () => {
  const forged = `Pay the ${HIGHLIGHT_START}URGENT FEE${HIGHLIGHT_STOP} today, then the garnishee ${HIGHLIGHT_STOP}order${HIGHLIGHT_START} is lifted`;
  await live.sim.sendInboundKind({ kind: 'text', from: '447700900123', body: forged });
  const { items } = await live.staff.inbox.search.query({ q: 'garnishee' });
  expect(items.map((i) => i.body)).toEqual([forged]); // the record itself is kept as it came
  const highlight = items[0]!.highlight;
  // One mark, around the word searched for: as many starts as stops, each start before its stop.
  expect(marked(highlight).replace(/[^[\]]/g, '')).toBe('[]');
  expect(marked(highlight)).toContain('[garnishee]');
  expect(highlight).toContain('URGENT FEE\uFFFD today'); // the marks it held, shown as U+FFFD
});

it('a change of SEARCH_LANGUAGE rebuilds the search column once, for that language', async () => {
  // A rebuild is the owner's work, run at start-up with the migrations (server/records/README.md "Records").
  const sequelize = createSequelize(live.server.databaseUrl, createLogger('silent'), { unbounded: true });
  onTestFinished(() => sequelize.close());
  const logger = { warn: () => undefined } as never;
  await ensureSearchLanguage(sequelize, 'simple', logger);
  expect(await sql(live.server.databaseUrl, 'SELECT language FROM search_settings')).toEqual([{ language: 'simple' }]);
  // No stemming in "simple": the exact word only.
  expect((await searchMessages(UNWALLED_READER, { q: 'invoice', language: 'simple' })).items).toEqual([]);
  expect((await searchMessages(UNWALLED_READER, { q: 'invoices', language: 'simple' })).items).toHaveLength(1);
  await ensureSearchLanguage(sequelize, 'english', logger);
  expect((await live.staff.inbox.search.query({ q: 'invoice' })).items).toHaveLength(1);
});

it('looks only in chat records: a note or an e-mail with the word is not a hit', async () => {
  const [client] = await sql<{ id: number }>(live.server.databaseUrl, "SELECT id FROM clients WHERE name = 'Amelia Hart'");
  await sql(
    live.server.databaseUrl,
    `INSERT INTO communications (type, direction, subject, body, client_id, metadata, receipts, created_at, updated_at)
     VALUES ('note', NULL, 'Quarantine', 'quarantined word in a note', $1, '{}', '{}', now(), now()),
            ('email', 'outbound', 'Quarantine', 'quarantined word in an e-mail', $1, '{}', '{}', now(), now())`,
    [client!.id],
  );
  expect((await live.staff.inbox.search.query({ q: 'quarantined' })).items).toEqual([]);
  await live.sim.sendInboundKind({ kind: 'text', from: '447700900123', body: 'Am I quarantined?' });
  expect((await live.staff.inbox.search.query({ q: 'quarantined' })).items.map((i) => i.body)).toEqual(['Am I quarantined?']);
});

it(`ranks the newest ${SEARCH_WINDOW} matches of a word: an older best match is found by adding a word`, async () => {
  const [client] = await sql<{ id: number }>(live.server.databaseUrl, "SELECT id FROM clients WHERE name = 'Amelia Hart'");
  // The oldest has the word five times (the best rank), then SEARCH_WINDOW newer ones have it once.
  await sql(
    live.server.databaseUrl,
    `INSERT INTO communications (type, direction, body, client_id, peer_phone, metadata, receipts, created_at, updated_at)
     SELECT 'chat', 'inbound', CASE WHEN g = 0 THEN 'probate probate probate probate probate, the old will' ELSE 'probate update ' || g END,
            $1, '447700900123', '{}', '{}', now() - interval '1 day' + g * interval '1 second', now()
     FROM generate_series(0, ${SEARCH_WINDOW}) g`,
    [client!.id],
  );
  const common = (await live.staff.inbox.search.query({ q: 'probate', limit: 5 })).items.map((i) => i.body);
  expect(common).toHaveLength(5);
  expect(common).not.toContain('probate probate probate probate probate, the old will');
  expect(common[0]).toBe(`probate update ${SEARCH_WINDOW}`); // equal ranks: the newest first
  expect((await live.staff.inbox.search.query({ q: 'probate old' })).items.map((i) => i.body)).toEqual([
    'probate probate probate probate probate, the old will',
  ]);
});

it('pages through the ranked window with a cursor: every hit once, best first, then newest', async () => {
  const ids: number[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const answer = await live.staff.inbox.search.query({ q: 'probate', limit: 70, cursor });
    ids.push(...answer.items.map((i) => i.id));
    cursor = answer.nextCursor ?? undefined;
    pages += 1;
  } while (cursor);
  expect(pages).toBe(Math.ceil(SEARCH_WINDOW / 70));
  expect(ids).toHaveLength(SEARCH_WINDOW);
  expect(new Set(ids).size).toBe(SEARCH_WINDOW);
  expect(ids).toEqual([...ids].sort((a, b) => b - a)); // equal ranks here: newest first throughout
  await expect(live.staff.inbox.search.query({ q: 'probate', cursor: 'nonsense' })).rejects.toMatchObject({
    data: { code: 'BAD_REQUEST' },
  });
});
