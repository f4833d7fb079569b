export { canSeeChat } from './chat-visibility';
export type { TViewer } from './chat-visibility';
export type { TThreadItem } from './inbox';
