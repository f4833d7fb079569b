import { query, type TFigure } from './bench-support';
import type { TLiveRun, TLiveWalls } from './live-updates';

// The walled variant of the live-update benchmark: delivery n comes from a restricted client's
// number when n % 3 = 0, from an open client's when n % 3 = 1, and from a number no client has
// otherwise. Streams at even positions belong to people who are members of every restricted
// client; the others to people who are members of none, so a third of the records are walled from
// half the streams. The fan-out asks the walls once per change for every stream's person; this
// checks, stream by stream, that each got exactly what it may see.

/** What a walled run expects: delivery n's sender, and whether stream s may not see delivery n. */
/** `firmNumberOf`: the firm number delivery n names (`metadata.display_phone_number`); absent: none named. */
export type TLiveWallPlan = {
  fromOf: (n: number) => string;
  hiddenFrom: (stream: number, n: number) => boolean;
  firmNumberOf?: (n: number) => string;
};

/** The same target as the unwalled row's at the largest count. */
const TARGET_P99_MS = 250;
const RESTRICTED_CLIENTS = 10;
const OPEN_CLIENTS = 10;
const restrictedNumber = (k: number) => `447700700${String(k).padStart(3, '0')}`;
const openNumber = (k: number) => `447700600${String(k).padStart(3, '0')}`;
const unlinkedNumber = (n: number) => `4477008${String(n % 1000).padStart(5, '0')}`;
const isWalled = (n: number) => n % 3 === 0;
const isMemberStream = (stream: number) => stream % 2 === 0;

export const liveWalls: TLiveWalls = {
  async seed(url, userIds) {
    const numbers = [
      ...Array.from({ length: RESTRICTED_CLIENTS }, (_, k) => ({ digits: restrictedNumber(k), restricted: true })),
      ...Array.from({ length: OPEN_CLIENTS }, (_, k) => ({ digits: openNumber(k), restricted: false })),
    ];
    await query(
      url,
      `WITH c AS (
         INSERT INTO clients (name, restricted)
         SELECT 'Live walls ' || d, r FROM unnest($1::text[], $2::boolean[]) AS x(d, r) RETURNING id, name
       )
       INSERT INTO client_numbers (client_id, digits, "primary") SELECT c.id, right(c.name, 12), true FROM c`,
      [numbers.map((n) => n.digits), numbers.map((n) => n.restricted)],
    );
    await query(
      url,
      `INSERT INTO access_members (subject_type, subject_id, user_id)
       SELECT 'client', c.id, u FROM clients c CROSS JOIN unnest($1::int[]) AS u WHERE c.restricted`,
      [userIds.filter((_, s) => isMemberStream(s))],
    );
    return {
      fromOf: (n) =>
        isWalled(n) ? restrictedNumber((n / 3) % RESTRICTED_CLIENTS) : n % 3 === 1 ? openNumber(n % OPEN_CLIENTS) : unlinkedNumber(n),
      hiddenFrom: (stream, n) => isWalled(n) && !isMemberStream(stream),
    };
  },
};

/** The walled run's rows: leaks and missed records (both must be 0), and the delivery p99 at this count. */
export function reportWalledLive(run: TLiveRun, report: (figure: TFigure) => void) {
  const part = 'live';
  const at = `${run.subscribers} subscribers, walled (a third of the records on restricted clients; half the streams' people members)`;
  const { sent } = run;
  report({
    part,
    name: `${at}: webhook deliveries not answered 2xx (of ${run.deliveries}${sent.failed ? `: ${sent.refusals}` : ''}; answered in p50 ${sent.answerP50.toFixed(0)} ms, p99 ${sent.answerP99.toFixed(0)} ms)`,
    value: sent.failed,
    unit: 'deliveries',
    target: '= 0',
    pass: sent.failed === 0,
  });
  report({
    part,
    name: `${at}: records a stream received that it may not see (of ${run.hidden} walled pairs; ${run.subscribersLeaked} streams leaked any)`,
    value: run.leaks,
    unit: 'records',
    target: '= 0',
    pass: run.leaks === 0,
  });
  report({
    part,
    name: `${at}: records a stream may see and did not receive (of ${run.arrivals + run.missed}; ${run.subscribersMissing} streams missed any; ${run.resyncs} resync frames, ${run.drops} dropped connections)`,
    value: run.missed,
    unit: 'records',
    target: '= 0',
    pass: run.missed === 0,
  });
  report({
    part,
    name: `${at}: webhook 200 → subscriber p99 (p50 ${run.p50.toFixed(1)} ms, max ${run.max.toFixed(0)} ms; from the send p99 ${run.fromSendP99.toFixed(0)} ms)`,
    value: run.p99,
    unit: 'ms',
    ceiling: TARGET_P99_MS,
    ceilingName: 'target',
    ratio: run.p99 / TARGET_P99_MS,
    target: `≤ ${TARGET_P99_MS} ms`,
    pass: run.p99 <= TARGET_P99_MS,
  });
  report({
    part,
    name: `${at}: server CPU over ${run.windowSeconds.toFixed(1)} s of deliveries (${((100 * run.cpu) / run.windowSeconds).toFixed(0)}% of one core; compare the unwalled row at the same count)`,
    value: run.cpu,
    unit: 's',
  });
}
