export { CONVERSATION_STATES, phoneDigitsOf, type TConversationState, type TThreadItem, type TThreadRef } from './inbox';
