import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { BackupAuthenticationError, BackupDamagedError } from './backup-format';
import type { TBackupKey } from './backup-key';

// The sealed file around a backup (server/backup/README.md "The file"): AES-256-GCM in chunks, each
// with its own tag, so a stream of any size is written in one pass and every byte is checked before
// it is used. Integers big-endian.
//
//   header  "FIRMCHAT-SEALED\n" (16) | u16 version | u8 key source (1 BACKUP_KEY, 2 signing key) |
//           u8 0 | u32 plaintext bytes per chunk | key id (16) | salt (16) | nonce prefix (4)   = 60 bytes
//   chunks  [ciphertext][16-byte tag], every one `chunk` plaintext bytes but the last (1..chunk)
//
// The file's key is HKDF-SHA256(backup key, salt, "firm-chat backup v1 file"): a fresh key per file,
// so nonces never repeat across files. Chunk i's nonce is the prefix and u64 i (a moved chunk fails);
// its additional data is the whole header and one byte, 1 on the last chunk only, so a file cut at
// a chunk's end fails too, as does an edited header.

export const SEALED_MAGIC = Buffer.from('FIRMCHAT-SEALED\n', 'latin1');
export const SEALED_VERSION = 1;
export const SEALED_HEADER_LENGTH = 60;
/** Plaintext bytes per chunk: the backup's frames are up to 1 MiB, so a frame spans two chunks at most. */
export const CHUNK_BYTES = 1024 * 1024;
const TAG_LENGTH = 16;
const MIN_CHUNK = 4 * 1024;
const MAX_CHUNK = 16 * 1024 * 1024;

type THeader = { version: number; source: number; chunkBytes: number; keyId: string; salt: Buffer; noncePrefix: Buffer; bytes: Buffer };

const fileKey = (key: Buffer, salt: Buffer) => Buffer.from(hkdfSync('sha256', key, salt, 'firm-chat backup v1 file', 32));

function nonceOf(prefix: Buffer, index: number): Buffer {
  const nonce = Buffer.alloc(12);
  prefix.copy(nonce, 0);
  nonce.writeBigUInt64BE(BigInt(index), 4);
  return nonce;
}

const aadOf = (header: Buffer, last: boolean) => Buffer.concat([header, Buffer.of(last ? 1 : 0)]);

function encodeHeader(key: TBackupKey, chunkBytes: number): THeader {
  const bytes = Buffer.alloc(SEALED_HEADER_LENGTH);
  SEALED_MAGIC.copy(bytes, 0);
  bytes.writeUInt16BE(SEALED_VERSION, 16);
  bytes.writeUInt8(key.source, 18);
  bytes.writeUInt32BE(chunkBytes, 20);
  Buffer.from(key.id, 'hex').copy(bytes, 24);
  randomBytes(20).copy(bytes, 40);
  return decodeHeader(bytes);
}

function decodeHeader(bytes: Buffer): THeader {
  return {
    version: bytes.readUInt16BE(16),
    source: bytes.readUInt8(18),
    chunkBytes: bytes.readUInt32BE(20),
    keyId: bytes.subarray(24, 40).toString('hex'),
    salt: bytes.subarray(40, 56),
    noncePrefix: bytes.subarray(56, 60),
    bytes,
  };
}

export type TSealWriter = { write: (buffer: Buffer) => Promise<void>; finish: () => Promise<void> };

/** Writes a sealed file into `handle` from position 0, sequentially; `finish` seals the last chunk. */
export async function createSealWriter(handle: FileHandle, key: TBackupKey, chunkBytes = CHUNK_BYTES): Promise<TSealWriter> {
  const header = encodeHeader(key, chunkBytes);
  const sealKey = fileKey(key.key, header.salt);
  await handle.write(header.bytes, 0, header.bytes.length, 0);
  let position = header.bytes.length;
  let index = 0;
  const pending = Buffer.alloc(chunkBytes);
  let fill = 0;
  const seal = async (last: boolean) => {
    const cipher = createCipheriv('aes-256-gcm', sealKey, nonceOf(header.noncePrefix, index));
    cipher.setAAD(aadOf(header.bytes, last));
    const record = Buffer.concat([cipher.update(pending.subarray(0, fill)), cipher.final(), cipher.getAuthTag()]);
    await handle.write(record, 0, record.length, position);
    position += record.length;
    index += 1;
    fill = 0;
  };
  return {
    async write(buffer) {
      let at = 0;
      while (at < buffer.length) {
        if (fill === chunkBytes) await seal(false); // sealed only once more follows: the last chunk is never empty
        const n = buffer.copy(pending, fill, at);
        fill += n;
        at += n;
      }
    },
    finish: () => seal(true),
  };
}

/** The backup's plaintext, read at any position; every byte handed out has been authenticated. */
export type TBackupSource = {
  /** Plaintext bytes. */
  size: number;
  read: (length: number, position: number, into?: Buffer) => Promise<Buffer>;
  /** Authenticates every chunk not read yet: the whole file is then known to be this firm's, unaltered and whole. */
  authenticateRest: () => Promise<void>;
};

export async function readExactly(handle: FileHandle, length: number, position: number, into?: Buffer): Promise<Buffer> {
  const buffer = into && into.length >= length ? into.subarray(0, length) : Buffer.alloc(length);
  let read = 0;
  while (read < length) {
    const { bytesRead } = await handle.read(buffer, read, length - read, position + read);
    if (bytesRead === 0) throw new BackupDamagedError('The backup file ends early: it is cut short or damaged.');
    read += bytesRead;
  }
  return buffer;
}

/** An unsealed backup of an older version, read as it is (only with restore's --allow-unencrypted). */
export function plainSource(handle: FileHandle, size: number): TBackupSource {
  return { size, read: (length, position, into) => readExactly(handle, length, position, into), authenticateRest: () => Promise.resolve() };
}

/** Opens a sealed file: the header is checked here (magic, version, key id); each chunk when first read. */
export async function sealedSource(handle: FileHandle, fileSize: number, key: TBackupKey, label: string): Promise<TBackupSource> {
  const altered = (why: string) => new BackupAuthenticationError(`${label} is altered, or not this firm's: ${why}.`);
  if (fileSize < SEALED_HEADER_LENGTH + TAG_LENGTH) throw altered('it is too short to hold a sealed backup');
  const header = decodeHeader(await readExactly(handle, SEALED_HEADER_LENGTH, 0));
  if (header.version !== SEALED_VERSION)
    throw new BackupDamagedError(`${label} is sealed in format version ${header.version}, which this version of Firm Chat does not know.`);
  if (header.chunkBytes < MIN_CHUNK || header.chunkBytes > MAX_CHUNK) throw altered('its header is damaged');
  if (header.keyId !== key.id) {
    const theirs = header.source === 1 ? 'a BACKUP_KEY' : header.source === 2 ? "a firm's signing key" : 'an unknown key';
    throw altered(`it was sealed with ${theirs} (key id ${header.keyId}), not this run's key from ${key.describe} (key id ${key.id})`);
  }
  const openKey = fileKey(key.key, header.salt);
  const record = header.chunkBytes + TAG_LENGTH;
  const body = fileSize - SEALED_HEADER_LENGTH;
  const rest = body % record;
  if (rest > 0 && rest < TAG_LENGTH) throw altered('it is cut short');
  const count = Math.floor(body / record) + (rest ? 1 : 0);
  const lastBytes = rest ? rest - TAG_LENGTH : header.chunkBytes;
  const size = (count - 1) * header.chunkBytes + lastBytes;
  const authenticated = new Set<number>();
  const scratch = Buffer.alloc(record);
  let cached: { index: number; plain: Buffer } | undefined;

  async function chunk(index: number): Promise<Buffer> {
    if (cached?.index === index) return cached.plain;
    const last = index === count - 1;
    const length = last ? lastBytes : header.chunkBytes;
    const sealed = await readExactly(handle, length + TAG_LENGTH, SEALED_HEADER_LENGTH + index * record, scratch);
    const decipher = createDecipheriv('aes-256-gcm', openKey, nonceOf(header.noncePrefix, index));
    decipher.setAAD(aadOf(header.bytes, last));
    decipher.setAuthTag(sealed.subarray(length));
    let plain: Buffer;
    try {
      plain = Buffer.concat([decipher.update(sealed.subarray(0, length)), decipher.final()]);
    } catch {
      throw altered(`its chunk ${index + 1} of ${count} does not authenticate (edited, cut short, or sealed with another key)`);
    }
    authenticated.add(index);
    cached = { index, plain };
    return plain;
  }

  return {
    size,
    async read(length, position, into) {
      if (position < 0 || position + length > size) throw new BackupDamagedError(`${label} ends early: it is cut short or damaged.`);
      const out = into && into.length >= length ? into.subarray(0, length) : Buffer.alloc(length);
      let done = 0;
      while (done < length) {
        const at = position + done;
        const index = Math.floor(at / header.chunkBytes);
        const plain = await chunk(index);
        done += plain.copy(
          out,
          done,
          at - index * header.chunkBytes,
          Math.min(plain.length, at - index * header.chunkBytes + length - done),
        );
      }
      return out;
    },
    async authenticateRest() {
      for (let index = 0; index < count; index++) if (!authenticated.has(index)) await chunk(index);
    },
  };
}
