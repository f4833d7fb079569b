// Brings tRPC's React types into the SPA's program, so its declarations (which the tests' type
// check reads: tests/tsconfig.json) can name the results of the hooks, which @trpc/react-query's
// main entry does not export.
import type {} from '@trpc/react-query/shared';
