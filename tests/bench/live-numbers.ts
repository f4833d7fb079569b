import { query, type TFigure } from './bench-support';
import { unlinkedNumber, type TLiveRun, type TLiveWalls } from './live-updates';

// The live fan-out with several business numbers (server/numbers/README.md "Several numbers"): the
// same deliveries naming one firm number, or three in turn; the webhook routes each by the firm's
// numbers and every record carries its number. Three must cost within a tenth of one.

const FIRM_NUMBERS = ['442079460000', '441134960222', '441614960333'];

/** A run whose deliveries name the first `count` of the firm's numbers in turn (the others are added first). */
export function liveNumbers(count: 1 | 3): TLiveWalls {
  return {
    name: `numbers_${count}`,
    leaks: false,
    async seed(url) {
      await query(url, `INSERT INTO firm_numbers (digits, label) SELECT d, 'Office ' || d FROM unnest($1::text[]) AS d`, [
        FIRM_NUMBERS.slice(1),
      ]);
      return { fromOf: unlinkedNumber, hiddenFrom: () => false, firmNumberOf: (n) => FIRM_NUMBERS[n % count]! };
    },
  };
}

export function reportNumbersLive(one: TLiveRun, three: TLiveRun, report: (figure: TFigure) => void) {
  const at = `${three.subscribers} subscribers, three firm numbers vs one`;
  report({
    part: 'live',
    name: `${at}: webhook 200 → subscriber p99 (one number ${one.p99.toFixed(0)} ms; missed ${three.missed} and ${one.missed}; not answered 2xx ${three.sent.failed} and ${one.sent.failed})`,
    value: three.p99,
    unit: 'ms',
    ceiling: one.p99,
    ceilingName: 'one number',
    ratio: three.p99 / Math.max(one.p99, 1),
    target: '≤ 1.1',
    pass: three.p99 <= 1.1 * Math.max(one.p99, 1) && three.missed === 0 && three.sent.failed === 0,
  });
  const perDelivery = (run: TLiveRun) => run.cpu / Math.max(run.deliveries, 1);
  report({
    part: 'live',
    name: `${at}: server CPU per delivery (one number ${(1000 * perDelivery(one)).toFixed(2)} ms)`,
    value: 1000 * perDelivery(three),
    unit: 'ms',
    ceiling: 1000 * perDelivery(one),
    ceilingName: 'one number',
    ratio: perDelivery(three) / Math.max(perDelivery(one), 1e-9),
    target: '≤ 1.1',
    pass: perDelivery(three) <= 1.1 * perDelivery(one),
  });
}
