import { DAY_NAMES, MAX_OPENINGS_PER_DAY } from './business-week';
import type { TFieldAttrs, TFieldMessage } from './field-attrs';
import { withSecondInterval, type TDayDraft } from './hours-draft';

/** The week, Monday first: each day closed, or open in one or two intervals (a lunch break). */
export function WeekField({
  days,
  onChange,
  field,
  message,
}: {
  days: TDayDraft[];
  onChange: (days: TDayDraft[]) => void;
  field: TFieldAttrs;
  message: TFieldMessage;
}) {
  const setDay = (index: number, day: TDayDraft) => onChange(days.map((d, i) => (i === index ? day : d)));
  return (
    // Focusable: a refused week gets the focus, so its message is read out.
    <fieldset className="hours-week" {...field} tabIndex={-1}>
      <legend>Opening hours</legend>
      {days.map((day, i) => {
        const name = DAY_NAMES[i]!;
        return (
          <div className="day-row" key={name} role="group" aria-label={name} data-day={i + 1}>
            <label className="day-open">
              <input type="checkbox" checked={day.open} onChange={(e) => setDay(i, { ...day, open: e.target.checked })} />
              <span>{name}</span>
            </label>
            {day.open ? (
              <span className="day-intervals">
                {day.intervals.map((interval, k) => {
                  const which = k === 0 ? '' : ' (second interval)';
                  const setInterval = (patch: Partial<typeof interval>) =>
                    setDay(i, { ...day, intervals: day.intervals.map((iv, j) => (j === k ? { ...iv, ...patch } : iv)) });
                  return (
                    <span className="interval" key={k}>
                      <input
                        type="time"
                        step={60}
                        aria-label={`${name} opens${which}`}
                        value={interval.opens}
                        onChange={(e) => setInterval({ opens: e.target.value })}
                      />
                      <span aria-hidden="true">–</span>
                      <input
                        // A time field cannot show 24:00 (midnight at the end of the day), which the server takes.
                        type={interval.closes === '24:00' ? 'text' : 'time'}
                        step={60}
                        aria-label={`${name} closes${which}`}
                        value={interval.closes}
                        onChange={(e) => setInterval({ closes: e.target.value })}
                      />
                    </span>
                  );
                })}
                {day.intervals.length < MAX_OPENINGS_PER_DAY ? (
                  <button
                    type="button"
                    className="link-button"
                    aria-label={`Add a break on ${name}`}
                    onClick={() => setDay(i, withSecondInterval(day))}
                  >
                    Add a break
                  </button>
                ) : (
                  <button
                    type="button"
                    className="link-button"
                    aria-label={`Remove the break on ${name}`}
                    onClick={() => setDay(i, { ...day, intervals: day.intervals.slice(0, 1) })}
                  >
                    Remove the break
                  </button>
                )}
              </span>
            ) : (
              <span className="muted day-closed">Closed</span>
            )}
          </div>
        );
      })}
      {message}
    </fieldset>
  );
}
