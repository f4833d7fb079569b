import type { TLogger } from '../core/logger';
import type { TMediaStore } from './media-store';

/** What both upload routes (`POST /api/media` and the resumable one) need; the session is checked before them. */
export type TUploadRouteDeps = {
  store: TMediaStore;
  siteUrl: string;
  logger: TLogger;
  idleMs: number;
};
