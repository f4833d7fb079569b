import { useId, useState, type KeyboardEvent } from 'react';
import { formatCalendarDate } from './business-week';
import type { TFieldAttrs, TFieldMessage } from './field-attrs';

/** Days the firm is closed whatever the weekday (bank holidays, the office move): add and remove. */
export function ClosedDatesField({
  dates,
  onChange,
  field,
  message,
}: {
  dates: string[];
  onChange: (dates: string[]) => void;
  field: TFieldAttrs;
  message: TFieldMessage;
}) {
  const [picked, setPicked] = useState('');
  const inputId = useId();
  const add = () => {
    if (!picked) return;
    if (!dates.includes(picked)) onChange([...dates, picked].sort());
    setPicked('');
  };
  // Enter adds the date here, rather than saving the whole form.
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    add();
  };
  return (
    <fieldset className="closed-dates" {...field} tabIndex={-1}>
      <legend>Closed dates</legend>
      {dates.length ? (
        <ul className="closed-date-list" aria-label="Closed dates">
          {dates.map((date) => (
            <li key={date}>
              <time dateTime={date}>{formatCalendarDate(date)}</time>
              <button
                type="button"
                className="link-button"
                aria-label={`Remove ${formatCalendarDate(date)}`}
                onClick={() => onChange(dates.filter((d) => d !== date))}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted small">None.</p>
      )}
      <span className="closed-date-add">
        <label htmlFor={inputId} className="visually-hidden">
          Closed date to add
        </label>
        <input id={inputId} type="date" value={picked} onChange={(e) => setPicked(e.target.value)} onKeyDown={onKeyDown} />
        <button type="button" className="button small ghost" onClick={add} disabled={!picked}>
          Add date
        </button>
      </span>
      {message}
    </fieldset>
  );
}
