/** Where a conversation stands (server/ownership/README.md "Ownership"): no conversation_states row is open. */
export const CONVERSATION_STATES = ['open', 'done', 'snoozed'] as const;
export type TConversationState = (typeof CONVERSATION_STATES)[number];
