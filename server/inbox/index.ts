export { CONVERSATION_STATES, type TConversationState, type TThreadItem } from './inbox';
