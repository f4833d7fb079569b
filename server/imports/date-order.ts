import { DATE_ORDERS, type TDateOrder } from '../../shared/import-preview';
import { instantOf } from '../../shared/zoned-time';
import type { TWrittenTime } from './chat-line';
import { ImportRefusal } from './import-refusal';

// Which of a date's numbers is the day: the export does not say, the phone's settings decided it.
// A number over 12 settles it; an export where every day is 12 or less cannot be told apart (both
// readings are dates), so the order that keeps the messages in time order is offered and the
// person is asked (server/imports/README.md "History from the phone").

export type { TDateOrder };

/** Watches every date of a file, in file order, and says in which order they are written. */
export class DateOrderVote {
  private yearFirst = 0;
  private dayFirst = 0;
  private monthFirst = 0;
  private previous: TWrittenTime | null = null;
  /** Steps back in time under each reading (a chat is written oldest first). */
  private backwards = { DMY: 0, MDY: 0 };
  /** The first line whose date is no day under each reading (31/02, 13/13). */
  private noDay: Record<TDateOrder, number | null> = { DMY: null, MDY: null, YMD: null };

  observe(time: TWrittenTime, line: number): void {
    const [a, b] = time.parts;
    if (a > 31) this.yearFirst += 1;
    else if (a > 12) this.dayFirst += 1;
    else if (b > 12) this.monthFirst += 1;
    for (const order of DATE_ORDERS) if (this.noDay[order] === null && !readDate(time, order)) this.noDay[order] = line;
    if (this.previous) {
      for (const order of ['DMY', 'MDY'] as const) {
        if (sortKey(time, order) < sortKey(this.previous, order)) this.backwards[order] += 1;
      }
    }
    this.previous = time;
  }

  /**
   * The order, and whether it is only the likelier one; refused (with a sentence) when no reading
   * gives every line a real date that is not in the future. `span` is the export's span read in an
   * order, or null when that reading puts a message after today.
   */
  result(span: (order: TDateOrder) => unknown): { dateOrder: TDateOrder; ambiguous: boolean } {
    const usable = (order: TDateOrder) => this.noDay[order] === null && span(order) !== null;
    const certain = (order: TDateOrder) => {
      if (this.noDay[order] !== null)
        throw new ImportRefusal(`Line ${this.noDay[order]} has a date that is no day of the year: it is not a chat export.`);
      if (span(order) === null)
        throw new ImportRefusal(`The export has messages dated after today: check the phone's date settings and export it again.`);
      return { dateOrder: order, ambiguous: false };
    };
    if (this.yearFirst > 0) {
      if (this.dayFirst + this.monthFirst > 0) throw twoOrders();
      return certain('YMD');
    }
    if (this.dayFirst > 0 && this.monthFirst > 0) throw twoOrders();
    if (this.dayFirst > 0) return certain('DMY');
    if (this.monthFirst > 0) return certain('MDY');
    const likelier = this.backwards.MDY < this.backwards.DMY ? 'MDY' : 'DMY';
    const other = likelier === 'MDY' ? 'DMY' : 'MDY';
    if (usable(likelier) && usable(other)) return { dateOrder: likelier, ambiguous: true };
    if (usable(likelier)) return { dateOrder: likelier, ambiguous: false };
    if (usable(other)) return { dateOrder: other, ambiguous: false };
    return certain(likelier);
  }
}

const twoOrders = () => new ImportRefusal("The export writes its dates in two different orders: it is not one phone's export.");

/** Year, month, day as the order reads them; null when that is no date. */
export function readDate(time: TWrittenTime, order: TDateOrder): { year: number; month: number; day: number } | null {
  const [a, b, c] = time.parts;
  const [year, month, day] = order === 'YMD' ? [a, b, c] : order === 'DMY' ? [c, b, a] : [c, a, b];
  const fullYear = year < 100 ? 2000 + year : year;
  if (month < 1 || month > 12 || day < 1 || day > new Date(Date.UTC(fullYear, month, 0)).getUTCDate()) return null;
  return { year: fullYear, month, day };
}

/** The instant a clock in `timeZone` showed (the export has no zone: the firm's). Null when the date is none under `order`. */
export function instantOfWritten(time: TWrittenTime, order: TDateOrder, timeZone: string): Date | null {
  const date = readDate(time, order);
  if (!date) return null;
  const hour = time.half === null ? time.hour : (time.hour % 12) + (time.half === 'pm' ? 12 : 0);
  return instantOf({ ...date, hour, minute: time.minute, second: time.second }, timeZone);
}

function sortKey(time: TWrittenTime, order: 'DMY' | 'MDY'): number {
  const [a, b, c] = time.parts;
  const [month, day] = order === 'DMY' ? [b, a] : [a, b];
  const hour = time.half === null ? time.hour : (time.hour % 12) + (time.half === 'pm' ? 12 : 0);
  return ((((c * 13 + month) * 32 + day) * 24 + hour) * 60 + time.minute) * 60 + time.second;
}
