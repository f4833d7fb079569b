import { createHash } from 'node:crypto';
import { open, type FileHandle } from 'node:fs/promises';
import {
  BACKUP_MAGIC,
  BackupDamagedError,
  FRAME_HEADER_LENGTH,
  MAX_FRAME_LENGTH,
  TRAILER_LENGTH,
  TRAILER_MAGIC,
  ZBackupManifest,
  type TBackupManifest,
  type TBackupPart,
} from './backup-format';

export type TBackupReader = {
  manifest: TBackupManifest;
  /**
   * The part's COPY bytes, a frame at a time; throws BackupDamagedError at its end when its size or
   * SHA-256 differ from the manifest's. `reuse`: every frame is read into one buffer, valid only until
   * the next (a check that only hashes them holds one frame's memory, not a heap of garbage).
   */
  readPart: (part: TBackupPart, options?: { reuse?: boolean }) => AsyncGenerator<Buffer>;
  close: () => Promise<void>;
};

async function readExactly(handle: FileHandle, length: number, position: number, into?: Buffer): Promise<Buffer> {
  const buffer = into && into.length >= length ? into.subarray(0, length) : Buffer.alloc(length);
  let read = 0;
  while (read < length) {
    const { bytesRead } = await handle.read(buffer, read, length - read, position + read);
    if (bytesRead === 0) throw new BackupDamagedError('The backup file ends early: it is cut short or damaged.');
    read += bytesRead;
  }
  return buffer;
}

/** Opens a backup file and reads its manifest (checked against the SHA-256 in the trailer); the parts are read on demand. */
export async function openBackup(file: string): Promise<TBackupReader> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    if (size < BACKUP_MAGIC.length + TRAILER_LENGTH) throw new BackupDamagedError(`${file} is too short to be a Firm Chat backup.`);
    const magic = await readExactly(handle, BACKUP_MAGIC.length, 0);
    if (!magic.equals(BACKUP_MAGIC)) throw new BackupDamagedError(`${file} is not a Firm Chat backup.`);
    const trailer = await readExactly(handle, TRAILER_LENGTH, size - TRAILER_LENGTH);
    if (!trailer.subarray(36).equals(TRAILER_MAGIC))
      throw new BackupDamagedError(`${file} has no end marker: the backup was not finished or is cut short.`);
    const manifestLength = trailer.readUInt32BE(32);
    const manifestStart = size - TRAILER_LENGTH - manifestLength;
    if (manifestStart < BACKUP_MAGIC.length) throw new BackupDamagedError(`${file} is damaged: its manifest's length is wrong.`);
    const manifestBytes = await readExactly(handle, manifestLength, manifestStart);
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
        const length = (await readExactly(handle, FRAME_HEADER_LENGTH, position)).readUInt32BE(0);
        position += FRAME_HEADER_LENGTH;
        if (length === 0) break;
        if (length > MAX_FRAME_LENGTH || position + length > manifestStart || bytes + length > part.bytes)
          throw new BackupDamagedError(`Part ${part.table} is damaged: a frame's length is wrong.`);
        const frame = await readExactly(handle, length, position, shared);
        position += length;
        bytes += length;
        hash.update(frame);
        yield frame;
      }
      if (bytes !== part.bytes || hash.digest('hex') !== part.sha256)
        throw new BackupDamagedError(`Part ${part.table} is damaged: its bytes do not match the SHA-256 in the manifest.`);
    }

    return { manifest, readPart, close: () => handle.close() };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Reads every part once and checks its size and SHA-256; `onBytes` hears the bytes checked so far. */
export async function verifyBackup(reader: TBackupReader, onBytes?: (table: string, bytes: number) => void): Promise<void> {
  for (const part of reader.manifest.parts) {
    let bytes = 0;
    for await (const frame of reader.readPart(part, { reuse: true })) {
      bytes += frame.length;
      onBytes?.(part.table, bytes);
    }
  }
}
