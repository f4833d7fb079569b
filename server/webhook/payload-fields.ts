import { z } from 'zod';
import { LONE_SURROGATE } from '../../shared/visible-text';

// A provider id is an opaque printable string; one with control characters (NUL cannot even be
// stored) is not a real id: that item is skipped and its siblings stored.
// A lone surrogate would be stored as U+FFFD, so two different ids would collide: skipped too.
export const ZProviderId = z
  .string()
  .min(1)
  .max(256)
  .regex(/^\P{Cc}+$/u, 'control characters')
  .refine((id) => !id.match(LONE_SURROGATE), 'lone surrogate');
export const ZTimestamp = z.union([z.string(), z.number()]).optional();
// PostgreSQL text and jsonb cannot hold NUL, and jsonb refuses a lone surrogate: keep the text
// readable (U+FFFD in their place) rather than refuse the item or fail the whole delivery.
export const ZText = z.string().transform((s) => s.replaceAll('\u0000', '\uFFFD').replace(LONE_SURROGATE, '\uFFFD'));

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
