import pg from 'pg';
import { EVERY_INBOUND_PART, insertInboundSql, type TInboundParts } from '../../../server/messaging/store-inbound';
import type { TInboundMessage } from '../../../server/messaging/inbound-message';
import { countPayloadItems, parsePayload } from '../../../server/webhook/parse-payload';
import { routeByNumber } from '../../../server/webhook/route-by-number';
import { provenSecret } from '../../../server/webhook/verify-signature';
import { migrateOnly } from '../app-under-test';
import { bySize, createDatabase, createDeliveryFactory, MEDIA_RATE, query, SECRET, type TBenchTools } from '../bench-support';

// Part 17, the webhook's cost part by part (tests/bench/README.md "Ingest, part by part"): what one
// delivery costs in each step the webhook takes, so that a regression names its step. The steps in
// the app's process are timed on the same deliveries part 1 sends; the store statement is timed
// whole and with one part left out at a time (its CTEs, and each trigger that fires on an INSERT
// into communications), in interleaved rounds on one connection, batches the size group commit
// makes under load: a part's price is what leaving it out saves.

const BATCH = 20;
/** The firm's number, as the webhook routes by it (server/numbers/number-routes.ts). */
const ROUTES = [{ id: 1, digits: '442079460000', phoneNumberId: null, active: true, secret: SECRET }];

/** What each trigger on an INSERT into communications keeps, by its name (server/core/db/migrations). */
const TRIGGER_PARTS: Record<string, string> = {
  communications_conversation_states: 'ownership (reopen, states)',
  communications_chat_threads_insert: 'inbox summaries (threads)',
  communications_overdue_cleared: 'ownership (overdue cleared)',
};

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Microseconds of one call of `step` per delivery, the median of `rounds` passes over every delivery. */
function timeInProcess<T>(items: T[], step: (item: T) => unknown, rounds = 5): number {
  const perRound: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const started = performance.now();
    for (const item of items) step(item);
    perRound.push(((performance.now() - started) * 1000) / items.length);
  }
  return median(perRound);
}

export async function benchIngestParts(adminUrl: string, tools: TBenchTools) {
  const { size } = tools;
  const deliveries = bySize(size, { smoke: 200, quick: 2_000, full: 10_000 });
  const rounds = bySize(size, { smoke: 2, quick: 4, full: 8 });
  const batchesPerRound = bySize(size, { smoke: 3, quick: 10, full: 25 });
  console.log(
    `\n== 17. Ingest, part by part: ${deliveries} deliveries (${MEDIA_RATE * 100}% photos) through each step in the app's process; the store statement in batches of ${BATCH}, whole and with each part left out, ${rounds} interleaved rounds`,
  );

  // Steps in the app's process, on part 1's deliveries.
  const factory = createDeliveryFactory(0, MEDIA_RATE);
  const made = Array.from({ length: deliveries }, () => factory.next());
  const raw = made.map((d) => ({ body: Buffer.from(d.body), headers: { 'x-service-signature': d.signature } }));
  const auth = { secret: SECRET, allowUnauthenticated: false, numberSecrets: [] };
  const verifyUs = timeInProcess(raw, (d) => {
    if (provenSecret(d.headers, d.body, auth) === null) throw new Error('a bench delivery failed its signature check');
  });
  const parsed: TInboundMessage[] = [];
  const parseUs = timeInProcess(raw, (d) => {
    const json: unknown = JSON.parse(d.body.toString('utf8'));
    countPayloadItems(json);
    return routeByNumber(parsePayload(json), ROUTES, 'all');
  });
  for (const d of raw) parsed.push(...routeByNumber(parsePayload(JSON.parse(d.body.toString('utf8'))), ROUTES, 'all').payload.messages);
  if (parsed.length !== deliveries) throw new Error(`parsed ${parsed.length} messages of ${deliveries} deliveries`);

  // The store statement, on a database of its own: the senders are clients (one in two), the firm is
  // closed with an automatic reply (so that part does its work), and messages were written just now.
  const url = await createDatabase(adminUrl, 'bench_ingest_parts');
  await migrateOnly(url);
  await query(
    url,
    `INSERT INTO clients (name) SELECT 'Client ' || g FROM generate_series(1, 50000) g;
     INSERT INTO client_numbers (client_id, digits, "primary") SELECT g, '4477009' || lpad((g * 2)::text, 5, '0'), true FROM generate_series(1, 49999) g;
     INSERT INTO business_hours (time_zone, week, auto_reply) VALUES ('UTC', '[{"day": 1, "opens": "00:00", "closes": "00:01"}]', 'We are closed; we will answer tomorrow.')
       ON CONFLICT (singleton) DO UPDATE SET week = EXCLUDED.week, auto_reply = EXCLUDED.auto_reply`,
  );
  const [{ triggers } = { triggers: [] }] = await query<{ triggers: string[] }>(
    url,
    `SELECT coalesce(array_agg(tgname::text ORDER BY tgname), '{}') AS triggers FROM pg_trigger
     WHERE tgrelid = 'communications'::regclass AND NOT tgisinternal AND tgenabled <> 'D' AND (tgtype & 4) <> 0`,
  );
  type TVariant = { name: string; parts: TInboundParts; trigger?: string };
  const variants: TVariant[] = [
    { name: 'whole', parts: EVERY_INBOUND_PART },
    { name: 'client match', parts: { ...EVERY_INBOUND_PART, match: false } },
    { name: 'files recorded', parts: { ...EVERY_INBOUND_PART, files: false } },
    { name: 'notify (live views)', parts: { ...EVERY_INBOUND_PART, notify: false } },
    { name: 'automatic replies', parts: { ...EVERY_INBOUND_PART, autoReplies: false } },
    ...triggers.map((trigger) => ({ name: TRIGGER_PARTS[trigger] ?? `trigger ${trigger}`, parts: EVERY_INBOUND_PART, trigger })),
  ];
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const timings = new Map<string, number[]>(variants.map((v) => [v.name, []]));
  let next = 0;
  // Fresh ids and times for every batch: each stores all it is given, as a burst of new messages does.
  const batchOf = (): TInboundMessage[] =>
    Array.from({ length: BATCH }, () => {
      const m = parsed[next++ % parsed.length]!;
      return { ...m, chatMsgId: `${m.chatMsgId}-${next}`, providerTimestamp: new Date() };
    });
  try {
    for (let round = 0; round < rounds; round++) {
      for (const variant of variants) {
        if (variant.trigger) await client.query(`ALTER TABLE communications DISABLE TRIGGER ${variant.trigger}`);
        for (let b = 0; b < batchesPerRound; b++) {
          const statement = insertInboundSql(batchOf(), true, variant.parts);
          const started = performance.now();
          await client.query(statement.text, statement.values);
          timings.get(variant.name)!.push(((performance.now() - started) * 1000) / BATCH);
        }
        if (variant.trigger) await client.query(`ALTER TABLE communications ENABLE TRIGGER ${variant.trigger}`);
      }
    }
    // The firm's numbers read, as the webhook did for every delivery before it kept them (server/numbers/number-route-cache.ts).
    const routeTimes: number[] = [];
    for (let i = 0; i < rounds * batchesPerRound; i++) {
      const started = performance.now();
      await client.query(
        'SELECT id, label, digits, phone_number_id, active, webhook_secret_sealed FROM firm_numbers ORDER BY active DESC, id',
      );
      routeTimes.push((performance.now() - started) * 1000);
    }
    tools.report({
      part: 'ingest-parts',
      name: 'route: the firm’s numbers read',
      value: median(routeTimes),
      unit: 'µs a delivery (a query each)',
    });
  } finally {
    await client.end();
  }

  const whole = median(timings.get('whole')!);
  tools.report({ part: 'ingest-parts', name: 'verify: signature', value: verifyUs, unit: 'µs a delivery' });
  tools.report({ part: 'ingest-parts', name: 'parse: JSON, items, route by number', value: parseUs, unit: 'µs a delivery' });
  tools.report({ part: 'ingest-parts', name: 'store: the whole statement', value: whole, unit: `µs a message (batches of ${BATCH})` });
  for (const variant of variants.slice(1)) {
    const saved = whole - median(timings.get(variant.name)!);
    tools.report({
      part: 'ingest-parts',
      name: `store, of which ${variant.name}`,
      value: saved,
      unit: `µs a message (${Math.round((saved / whole) * 100)}% of the statement)`,
    });
  }
}
