export { addNote, NOTE_MAX_LENGTH } from './add-note';
export { assignConversation } from './assign-conversation';
export { findConversation, listPeopleWhoMaySee, type TConversationRef, type TPersonRef } from './conversation-ref';
export { scheduleConversationTimers } from './conversation-timers';
export { setClientResponsible } from './set-responsible';
export { setConversationState } from './set-conversation-state';
export { readWorkload, type TWorkloadRow } from './workload';
