export { addNote, NOTE_MAX_LENGTH } from './add-note';
export { type TPersonRef } from './conversation-ref';
export { scheduleConversationTimers } from './conversation-timers';
export { setClientResponsible } from './set-responsible';
