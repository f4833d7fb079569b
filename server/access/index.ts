export { assertMayAppointDirectors, assertRecordVisible, assertSubjectVisible, refuseWalled } from './access-gate';
export type { TSubject } from './access-gate';
