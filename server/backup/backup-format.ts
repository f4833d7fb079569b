import { z } from 'zod';

// A backup's contents (server/backup/README.md "The file"), sealed on disk by sealed-file.ts; a
// backup of an older version is these bytes unsealed. Every integer is big-endian.
//
//   magic     "FIRMCHAT-BACKUP\n" (16 bytes)
//   parts     one per table of schema public, in the manifest's order (parents before the tables
//             that reference them): frames of [u32 n][n bytes of the table's COPY … (FORMAT binary)
//             output], ended by an empty frame [u32 0]
//   manifest  UTF-8 JSON, ZBackupManifest below
//   trailer   [32 bytes: SHA-256 of the manifest][u32 the manifest's length]["FCBKEND\n"]
//
// Why not tar: a tar entry's size comes before its bytes, and a table's COPY output is only known
// once it has streamed; a length-framed stream is written in one pass with flat memory. The manifest
// comes last for the same reason (rows, sizes and hashes are known at the end) and the trailer says
// where it starts, so a reader finds it without scanning. COPY's binary format keeps bytea as raw
// bytes (text format doubles them as hex) and needs no quoting; both ends run the same schema,
// rebuilt by the app's own migrations (pg_dump is not part of the embedded package).

export const BACKUP_MAGIC = Buffer.from('FIRMCHAT-BACKUP\n', 'latin1');
export const TRAILER_MAGIC = Buffer.from('FCBKEND\n', 'latin1');
export const TRAILER_LENGTH = 32 + 4 + TRAILER_MAGIC.length;
export const FRAME_HEADER_LENGTH = 4;
/** Frames are written up to 1 MiB; a reader refuses a length beyond this as damage, not an allocation. */
export const MAX_FRAME_LENGTH = 64 * 1024 * 1024;
export const FORMAT_NAME = 'firm-chat-backup';
export const FORMAT_VERSION = 1;

const ZSha256 = z.string().regex(/^[0-9a-f]{64}$/);

export const ZBackupPart = z.object({
  table: z.string().min(1),
  /** The columns in COPY order (generated columns are left out: PostgreSQL computes them again). */
  columns: z.array(z.string().min(1)).min(1),
  rows: z.number().int().nonnegative(),
  /** COPY bytes, without the frame headers. */
  bytes: z.number().int().nonnegative(),
  sha256: ZSha256,
  /** Where its first frame starts in the file. */
  offset: z.number().int().nonnegative(),
});
export type TBackupPart = z.infer<typeof ZBackupPart>;

export const ZBackupSequence = z.object({
  name: z.string().min(1),
  /** The table and column that own it, when one does (restore never sets it below that column's largest value). */
  table: z.string().nullable(),
  column: z.string().nullable(),
  /** As text: a bigint. */
  lastValue: z.string().regex(/^-?\d+$/),
  isCalled: z.boolean(),
});
export type TBackupSequence = z.infer<typeof ZBackupSequence>;

export const ZBackupManifest = z.object({
  format: z.literal(FORMAT_NAME),
  version: z.literal(FORMAT_VERSION),
  /** When the snapshot was taken (the database's now() inside it). */
  createdAt: z.string(),
  /** The last migration applied: the schema the parts fit. */
  schemaVersion: z.string().min(1),
  /** Every migration applied, in order: restore migrates an empty database to exactly these. */
  migrations: z.array(z.string().min(1)).min(1),
  postgresVersion: z.string(),
  /** SEARCH_LANGUAGE the search column was built for (search_settings), so the rebuilt column agrees with the row restored. */
  searchLanguage: z.string().nullable(),
  copyFormat: z.literal('binary'),
  parts: z.array(ZBackupPart),
  sequences: z.array(ZBackupSequence),
});
export type TBackupManifest = z.infer<typeof ZBackupManifest>;

export class BackupDamagedError extends Error {
  override name = 'BackupDamagedError';
}

/** The file does not authenticate under this run's backup key: edited, cut short, or another firm's. */
export class BackupAuthenticationError extends BackupDamagedError {
  override name = 'BackupAuthenticationError';
}

/** An unsealed backup of an older version, met without --allow-unencrypted. */
export class BackupUnencryptedError extends BackupDamagedError {
  override name = 'BackupUnencryptedError';
}

export const frameHeader = (length: number) => {
  const header = Buffer.alloc(FRAME_HEADER_LENGTH);
  header.writeUInt32BE(length);
  return header;
};
