import { z } from 'zod';
import { ZRecordId } from '../trpc/record-id';
import { ZDateOrder, ZImportPreview, type TImportPreview } from '../../shared/import-preview';

// What an import is to the person doing it (server/imports/README.md "History from the phone"): a
// preview of the export, the choices that commit it, and the imports a client's file has had.

const ZImportId = z.uuid('Not an import of this server');
const count = z.int().nonnegative();

export { ZImportPreview, type TImportPreview };

export const ZCommitImportInput = z.object({
  importId: ZImportId,
  clientId: ZRecordId,
  caseId: ZRecordId.optional(),
  /** The export's names that are the firm's people: their messages are the firm's; everyone else's are the client's. */
  firmParticipants: z.array(z.string().max(200)).max(50),
  /** When the preview could not tell (every day 12 or less), the person's choice. */
  dateOrder: ZDateOrder.optional(),
});
export type TCommitImportInput = z.infer<typeof ZCommitImportInput>;

export const ZCommitImportResult = z.object({ imported: count, duplicates: count, attachments: count });
export type TCommitImportResult = z.infer<typeof ZCommitImportResult>;

export const ZImportIdInput = z.object({ importId: ZImportId });
export const ZClientImportsInput = z.object({ clientId: ZRecordId });

export const ZClientImport = z.object({
  importId: z.string(),
  fileName: z.string(),
  fileSha256: z.string(),
  caseId: z.number().nullable(),
  committedAt: z.date(),
  committedBy: z.object({ id: z.number(), name: z.string() }).nullable(),
  firstAt: z.string().nullable(),
  lastAt: z.string().nullable(),
  ...ZCommitImportResult.shape,
});
export type TClientImport = z.infer<typeof ZClientImport>;
