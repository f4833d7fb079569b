// The chunk a first visit loads (app.tsx says why it starts here, not at the feature's index.ts).
export { EnrolmentPage, SettingsPage } from '../features/settings';
