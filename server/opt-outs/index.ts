export { applyOptOutChanges, clearOptOut } from './change-opt-outs';
export { optOutChangeOfText, type TOptOutChange } from './opt-out-keywords';
export { findNumberOptOut, stopsNumber } from './stops-number';
