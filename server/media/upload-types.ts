import type { TLogger } from '../core/logger';
import type { TMediaStore } from './media-store';

export type TUploadedFile = {
  attachmentId: number;
  kind: 'image' | 'audio' | 'video' | 'document';
  mimeType: string;
  fileName: string;
  size: number;
};

/** What both upload routes (this one and the resumable one) need. */
export type TUploadRouteDeps = {
  store: TMediaStore;
  siteUrl: string;
  sessionSecret: string;
  logger: TLogger;
  now: () => Date;
  idleMs: number;
};
