import { useId, useMemo } from 'react';
import { listTimeZones } from './business-week';
import type { TFieldAttrs, TFieldMessage } from './field-attrs';

/**
 * The firm's time zone: a text box that offers the browser's IANA zones as one types
 * ("lon" → Europe/London). The server checks it; its refusal shows under the box.
 */
export function TimeZoneField({
  value,
  onChange,
  input,
  message,
}: {
  value: string;
  onChange: (timeZone: string) => void;
  input: TFieldAttrs;
  message: TFieldMessage;
}) {
  const zones = useMemo(() => listTimeZones(), []);
  const listId = useId();
  const hintId = useId();
  return (
    <div className="field time-zone-field">
      <label htmlFor={input.id}>Time zone</label>
      <small className="field-hint" id={hintId}>
        The hours below are this zone&rsquo;s. Type part of a city to search (e.g. London, New York).
      </small>
      <input
        {...input}
        aria-describedby={[hintId, input['aria-describedby']].filter(Boolean).join(' ')}
        list={listId}
        value={value}
        autoComplete="off"
        spellCheck={false}
        onChange={(e) => onChange(e.target.value)}
      />
      <datalist id={listId}>
        {zones.map((zone) => (
          <option key={zone} value={zone} />
        ))}
      </datalist>
      {message}
    </div>
  );
}
