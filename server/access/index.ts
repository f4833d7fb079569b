export { assertRecordVisible, assertSubjectVisible, seesRecord, seesSubject, subjectKeyOf } from './access-gate';
export type { TSubject } from './access-gate';
export { denialsSettled } from './record-denial';
