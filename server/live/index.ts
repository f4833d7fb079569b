export { LIVE_PATH } from './live-path';
export { ZLiveInput } from './live-streams';
export type { LiveStreams } from './live-streams';
