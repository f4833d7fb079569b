import { ChoiceGroup } from '../../ui/choice-group';
import type { TThreadState } from './snooze-presets';

const STATES: [TThreadState, string][] = [
  ['open', 'Open'],
  ['done', 'Done'],
  ['snoozed', 'Snoozed'],
];

export const isThreadState = (value: string | null): value is TThreadState => STATES.some(([s]) => s === value);

/** Which conversations the inbox lists: the open ones (the default), the done or the snoozed. */
export function StateSwitch({ state, onChange }: { state: TThreadState; onChange: (state: TThreadState) => void }) {
  return <ChoiceGroup label="State" options={STATES} value={state} onChange={onChange} className="state-switch" optionClass="segment" />;
}
