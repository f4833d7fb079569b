export { listWording } from './firm-wording';
export type { TWording } from './wording-schema';
