export type { TThreadItem } from './inbox';
