import { z } from 'zod';
import type { TMediaStore } from '../media';
import { authedProcedure, router } from '../trpc/init';
import { discardImport, listClientImports, readImportProgress } from './client-imports';
import { commitImport } from './commit-import';
import { ZClientImport, ZClientImportsInput, ZCommitImportInput, ZCommitImportResult, ZImportIdInput } from './import-schema';

/**
 * History from the phone (server/imports/README.md "History from the phone"): the preview comes from
 * `POST /api/imports/whatsapp`; these commit it, drop it, and list a client's imports. Anyone who
 * may see the client may import to it: the walls decide, as for any record.
 */
export function createImportsRouter(deps: { store: TMediaStore; firmTimeZone: string }) {
  return router({
    commit: authedProcedure
      .input(ZCommitImportInput)
      .output(ZCommitImportResult)
      .mutation(({ ctx, input }) => commitImport(ctx.reader, deps, input)),

    list: authedProcedure
      .input(ZClientImportsInput)
      .output(z.array(ZClientImport))
      .query(({ ctx, input }) => listClientImports(ctx.reader, input.clientId)),

    /** While a commit runs: how many of the export's messages it has written (or found on file already). */
    progress: authedProcedure
      .input(ZImportIdInput)
      .output(z.object({ done: z.number(), total: z.number() }).nullable())
      .query(({ ctx, input }) => readImportProgress(ctx.reader, input.importId)),

    discard: authedProcedure
      .input(ZImportIdInput)
      .output(ZImportIdInput)
      .mutation(({ ctx, input }) => discardImport(ctx.reader, input.importId)),
  });
}
