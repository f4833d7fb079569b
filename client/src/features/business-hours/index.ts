// The firm's hours, as Settings shows them.
export { BusinessHoursPanel } from './business-hours-panel';
