// Retention, legal holds and erasure: the Records page, and the marks other pages show.
export { CaseStatusButton } from './case-status-button';
export { ErasedClientPanel } from './erased-client-panel';
export { ErasedNote, erasedText } from './erased-note';
export { HoldBanner } from './hold-banner';
export { RecordsPage } from './records-page';
