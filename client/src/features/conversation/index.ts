// One conversation's screen, and the pieces of a message a client's timeline draws the same way.
export { MessageContent } from './message-content';
export { OptOutBanner } from './opt-out-banner';
export { ReactionChips } from './reaction-chips';
export { ThreadView } from './thread-view';
export { useQuotedOf } from './use-quoted-of';
