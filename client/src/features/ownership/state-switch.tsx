import type { TThreadState } from './snooze-presets';

const STATES: [TThreadState, string][] = [
  ['open', 'Open'],
  ['done', 'Done'],
  ['snoozed', 'Snoozed'],
];

export const isThreadState = (value: string | null): value is TThreadState => STATES.some(([s]) => s === value);

/** Which conversations the inbox lists: the open ones (the default), the done or the snoozed. */
export function StateSwitch({ state, onChange }: { state: TThreadState; onChange: (state: TThreadState) => void }) {
  return (
    <div className="state-switch" role="radiogroup" aria-label="State">
      {STATES.map(([value, label]) => (
        <button
          key={value}
          type="button"
          role="radio"
          aria-checked={state === value}
          className={state === value ? 'segment active' : 'segment'}
          onClick={() => onChange(value)}
        >
          {label}
        </button>
      ))}
    </div>
  );
}
