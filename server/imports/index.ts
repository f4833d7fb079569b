export { MAX_IMPORT_BYTES } from './import-limits';
