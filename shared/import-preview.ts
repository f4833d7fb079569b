import { z } from 'zod';

// What the server reads from a WhatsApp export before anything becomes a record (server/imports/README.md
// "History from the phone"): the SPA shows it, and the person's choices commit it.

/** Which of a date's numbers is the day, month and year, as the phone wrote them. */
export const DATE_ORDERS = ['DMY', 'MDY', 'YMD'] as const;
export const ZDateOrder = z.enum(DATE_ORDERS);
export type TDateOrder = z.infer<typeof ZDateOrder>;

const count = z.int().nonnegative();

export const ZImportPreview = z.object({
  importId: z.string(),
  fileName: z.string(),
  fileSha256: z.string(),
  /** Who wrote, and how many messages each. */
  participants: z.array(z.object({ name: z.string(), messages: count })),
  messages: count,
  /** Files the export holds for its messages. */
  attachments: count,
  /** Files the messages name that the export does not hold (exported without media, or lost). */
  missingMedia: count,
  /** The chat's own lines (encryption notices, numbers changed): not imported. */
  system: count,
  firstAt: z.string().nullable(),
  lastAt: z.string().nullable(),
  dateOrder: ZDateOrder,
  /** The export cannot tell day from month (every day 12 or less): `dateOrder` is the likelier; the person chooses. */
  ambiguous: z.boolean(),
  /** How many times this very file (by SHA-256) was imported before, to clients the person may see: again adds only what is new. */
  alreadyImported: count.optional(),
  /** With `ambiguous`: the span read day first and month first (null: that reading is no date, or puts a message after today). */
  readings: z
    .object({
      DMY: z.object({ firstAt: z.string(), lastAt: z.string() }).nullable(),
      MDY: z.object({ firstAt: z.string(), lastAt: z.string() }).nullable(),
    })
    .optional(),
});
export type TImportPreview = z.infer<typeof ZImportPreview>;
