// Brings tRPC's internal types into the server's program, so its declarations (which the SPA's
// type check reads: client/tsconfig.json) can name TrackedData, the type of a tracked subscription's
// events, which @trpc/server's main entry does not export.
import type {} from '@trpc/server/unstable-core-do-not-import';
