export { NO_DOWNLOADS_IN_DEMO } from './media-download-queue';
export { PostgresMediaStore } from './media-store';
export type { TMediaStore } from './media-store';
export { RESUMABLE_UPLOAD_TTL_MS } from './uploads/resumable-store';
