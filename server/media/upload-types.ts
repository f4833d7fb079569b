import type { TLogger } from '../core/logger';
import type { TMediaStore } from './media-store';

export type TUploadedFile = {
  attachmentId: number;
  kind: 'image' | 'audio' | 'video' | 'document';
  mimeType: string;
  fileName: string;
  size: number;
};

/** What both upload routes (`POST /api/media` and the resumable one) need; the session is checked before them. */
export type TUploadRouteDeps = {
  store: TMediaStore;
  siteUrl: string;
  logger: TLogger;
  idleMs: number;
};
