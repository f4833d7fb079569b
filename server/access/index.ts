export { assertMayAppointDirectors, assertRecordVisible, assertSubjectVisible, seesRecord, seesSubject } from './access-gate';
