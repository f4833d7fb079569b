export { assertMayAppointDirectors, assertRecordVisible, assertSubjectVisible, seesRecord, seesSubject } from './access-gate';
export type { TSubject } from './access-gate';
