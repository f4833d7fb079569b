import { z } from 'zod';

/** A keyset cursor as the server handed it out: opaque to callers, bounded for the parser. */
export const ZCursor = z.string().min(1).max(200);
