import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import {
  BACKUP_MAGIC,
  BackupDamagedError,
  BackupUnencryptedError,
  FRAME_HEADER_LENGTH,
  MAX_FRAME_LENGTH,
  TRAILER_LENGTH,
  TRAILER_MAGIC,
  ZBackupManifest,
  type TBackupManifest,
  type TBackupPart,
} from './backup-format';
import type { TBackupKey } from './backup-key';
import { plainSource, readExactly, SEALED_MAGIC, sealedSource, type TBackupSource } from './sealed-file';

export type TBackupReader = {
  manifest: TBackupManifest;
  /** False for an older version's unsealed file opened with `allowUnencrypted`. */
  sealed: boolean;
  /**
   * The part's COPY bytes, a frame at a time; throws BackupDamagedError at its end when its size or
   * SHA-256 differ from the manifest's. `reuse`: every frame is read into one buffer, valid only until
   * the next (a check that only hashes them holds one frame's memory, not a heap of garbage).
   */
  readPart: (part: TBackupPart, options?: { reuse?: boolean }) => AsyncGenerator<Buffer>;
  /** Authenticates every chunk not read yet (verifyBackup's last step). */
  authenticateRest: () => Promise<void>;
  close: () => Promise<void>;
};

export type TOpenOptions = {
  key: TBackupKey;
  /** Accept an older version's unsealed file (restore --allow-unencrypted): nothing proves it unaltered. */
  allowUnencrypted?: boolean;
};

/** Opens a backup file and reads its manifest (checked against the SHA-256 in the trailer); the parts are read on demand. */
export async function openBackup(file: string, options: TOpenOptions): Promise<TBackupReader> {
  const handle = await open(file, 'r');
  try {
    const { size: fileSize } = await handle.stat();
    if (fileSize < BACKUP_MAGIC.length) throw new BackupDamagedError(`${file} is too short to be a Firm Chat backup.`);
    const start = await readExactly(handle, BACKUP_MAGIC.length, 0);
    let source: TBackupSource;
    if (start.equals(SEALED_MAGIC)) source = await sealedSource(handle, fileSize, options.key, file);
    else if (start.equals(BACKUP_MAGIC) && options.allowUnencrypted) source = plainSource(handle, fileSize);
    else if (start.equals(BACKUP_MAGIC))
      throw new BackupUnencryptedError(
        `${file} is an unencrypted backup made by an older version of Firm Chat: nothing proves it unaltered, so it is refused; restore it with \`npm run restore -- --allow-unencrypted <file>\` if you trust where it was kept, then take a new backup.`,
      );
    else throw new BackupDamagedError(`${file} is not a Firm Chat backup.`);
    const { size } = source;

    if (size < BACKUP_MAGIC.length + TRAILER_LENGTH) throw new BackupDamagedError(`${file} is too short to be a Firm Chat backup.`);
    const magic = await source.read(BACKUP_MAGIC.length, 0);
    if (!magic.equals(BACKUP_MAGIC)) throw new BackupDamagedError(`${file} is not a Firm Chat backup.`);
    const trailer = await source.read(TRAILER_LENGTH, size - TRAILER_LENGTH);
    if (!trailer.subarray(36).equals(TRAILER_MAGIC))
      throw new BackupDamagedError(`${file} has no end marker: the backup was not finished or is cut short.`);
    const manifestLength = trailer.readUInt32BE(32);
    const manifestStart = size - TRAILER_LENGTH - manifestLength;
    if (manifestStart < BACKUP_MAGIC.length) throw new BackupDamagedError(`${file} is damaged: its manifest's length is wrong.`);
    const manifestBytes = await source.read(manifestLength, manifestStart);
    if (!createHash('sha256').update(manifestBytes).digest().equals(trailer.subarray(0, 32)))
      throw new BackupDamagedError(`${file} is damaged: its manifest does not match its SHA-256.`);
    const parsed = ZBackupManifest.safeParse(JSON.parse(manifestBytes.toString('utf8')));
    if (!parsed.success) throw new BackupDamagedError(`${file} has a manifest this version of Firm Chat cannot read.`);
    const manifest = parsed.data;

    async function* readPart(part: TBackupPart, options: { reuse?: boolean } = {}): AsyncGenerator<Buffer> {
      const shared = options.reuse ? Buffer.alloc(2 * 1024 * 1024) : undefined; // frames are written up to 1 MiB and one socket read more
      const hash = createHash('sha256');
      let position = part.offset;
      let bytes = 0;
      for (;;) {
        if (position + FRAME_HEADER_LENGTH > manifestStart)
          throw new BackupDamagedError(`Part ${part.table} runs past the end of the data.`);
        const length = (await source.read(FRAME_HEADER_LENGTH, position)).readUInt32BE(0);
        position += FRAME_HEADER_LENGTH;
        if (length === 0) break;
        if (length > MAX_FRAME_LENGTH || position + length > manifestStart || bytes + length > part.bytes)
          throw new BackupDamagedError(`Part ${part.table} is damaged: a frame's length is wrong.`);
        const frame = await source.read(length, position, shared);
        position += length;
        bytes += length;
        hash.update(frame);
        yield frame;
      }
      if (bytes !== part.bytes || hash.digest('hex') !== part.sha256)
        throw new BackupDamagedError(`Part ${part.table} is damaged: its bytes do not match the SHA-256 in the manifest.`);
    }

    return {
      manifest,
      sealed: start.equals(SEALED_MAGIC),
      readPart,
      authenticateRest: source.authenticateRest,
      close: () => handle.close(),
    };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * Reads every part once and checks its size and SHA-256, then authenticates whatever chunk of the
 * sealed file no part covered: on success every byte of the file is this firm's, unaltered and whole.
 * `onBytes` hears the bytes checked so far.
 */
export async function verifyBackup(reader: TBackupReader, onBytes?: (table: string, bytes: number) => void): Promise<void> {
  for (const part of reader.manifest.parts) {
    let bytes = 0;
    for await (const frame of reader.readPart(part, { reuse: true })) {
      bytes += frame.length;
      onBytes?.(part.table, bytes);
    }
  }
  await reader.authenticateRest();
}
