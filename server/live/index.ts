export { LIVE_PATH } from './live-path';
export type { LiveStreams } from './live-streams';
