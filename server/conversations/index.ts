export { announceOwnershipChange, lockConversationRow, moveConversationRow, type TConversationRow } from './conversation-row';
export { CONVERSATION_STATES, type TConversationState } from './conversation-state';
export { conversationKeyOf, phoneDigitsOf, ZThreadRef, type TThreadRef } from './thread-ref';
