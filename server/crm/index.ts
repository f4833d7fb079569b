export { createCase } from './cases';
export { matchOneClient } from './client-match';
export { assertClientExists, assertNumberFreeOrConfirmed, createClient, insertClientNumber, removeNumberRow } from './clients';
export { assertClientWritable, erasedClientMessage } from '../core/client-writable';
