// Who has a conversation and its state (server/ownership/README.md "Ownership"): the inbox's and the conversation's
// controls, internal notes with mentions, the workload panel.
export { AssignMenu } from './assign-menu';
export { ComposeModeToggle } from './compose-mode-toggle';
export { NoteComposer } from './note-composer';
export { NoteText } from './note-text';
export { OwnershipBar } from './ownership-bar';
export { refreshOwnership } from './refresh-ownership';
export { ResponsiblePerson } from './responsible-person';
export type { TThreadState } from './snooze-presets';
export { isThreadState, StateSwitch } from './state-switch';
export { ThreadMarkers } from './thread-markers';
export { useOwnershipActions } from './use-ownership-actions';
export { WorkloadPanel } from './workload-panel';
