// The Settings page (its panels come from the features that own them).
export { SettingsPage } from './settings-page';
export { EnrolmentPage } from './enrolment-page';
