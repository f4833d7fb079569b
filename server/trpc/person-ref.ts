import { z } from 'zod';

/** A person as answers name them: who added, assigned, sent or decided something. */
export const ZPersonRef = z.object({ id: z.number(), name: z.string() });
