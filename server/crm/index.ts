export { createCase } from './cases';
export { matchOneClientSql } from './client-match';
export { assertClientExists, assertNumberFreeOrConfirmed, createClient, insertClientNumber, removeNumberRow } from './clients';
export { applyOptOutChanges, findNumberOptOut, optOutChangeOfText, stopsNumberSql } from './opt-outs';
