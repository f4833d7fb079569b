export { loadThreadItems, type TThreadItem } from './thread-items';
export { ZThreadItem } from './inbox-outputs';
