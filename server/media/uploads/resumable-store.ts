import { AsyncLocalStorage } from 'node:async_hooks';
import type { Readable } from 'node:stream';
import { DataStore, Upload } from '@tus/utils';
import { QueryTypes, type Transaction } from 'sequelize';
import { sendKindOf, tooLargeMessage, UPLOAD_LIMITS } from '../../../shared/media-limits';
import { cleanFileName, cleanMimeType } from '../../core/clean-file-metadata';
import { CHUNK_BYTES } from '../media-store';
import { db } from '../../core/db/db';
import { UploadRefusal } from '../upload-refusal';

/** A resumable upload not finished within this is removed (and a finished one forgotten). */
export const RESUMABLE_UPLOAD_TTL_MS = 24 * 60 * 60 * 1000;

/** Who is uploading: set by the route around each request, read where tus gives no request. */
export const uploaderContext = new AsyncLocalStorage<{ userId: number }>();

export const uploadNotFound = () => new UploadRefusal(404, 'No such upload.');

export type TUploadDescription = {
  kind: 'image' | 'audio' | 'video' | 'document';
  mimeType: string;
  fileName: string;
  limit: number;
  /** What HEAD echoes back: the cleaned values only (jsonb refuses some of what a header can carry). */
  metadata: Record<string, string>;
};

/**
 * What a tus upload will become, from its Upload-Metadata (`filename`, `filetype`, and `as=document`
 * to send a photo or video as a document), cleaned as every file from outside is; refused when its
 * declared length is empty or over its kind's limit.
 */
export function describeUpload(metadata: Record<string, string | null> | undefined, size: number | undefined): TUploadDescription {
  const mimeType = cleanMimeType(metadata?.filetype ?? metadata?.type);
  const asDocument = metadata?.as === 'document';
  const kind = sendKindOf(mimeType, { asDocument });
  const fileName = cleanFileName(metadata?.filename ?? metadata?.name) ?? 'file';
  const limit = UPLOAD_LIMITS[kind];
  if (size === undefined) throw new UploadRefusal(400, 'Say the size of the file (Upload-Length).');
  if (size === 0) throw new UploadRefusal(400, 'The file is empty.');
  if (size > limit) throw new UploadRefusal(413, tooLargeMessage(kind, limit));
  return {
    kind,
    mimeType,
    fileName,
    limit,
    metadata: { filename: fileName, filetype: mimeType, ...(asDocument ? { as: 'document' } : {}) },
  };
}

type TUploadRow = {
  id: string;
  user_id: number;
  size: number;
  offset: number;
  metadata: Record<string, string>;
  created_at: Date;
};

/**
 * tus's store over PostgreSQL (`resumable_uploads`, `resumable_upload_parts`): the offset and the
 * bytes received so far are in the database, so an interrupted upload resumes after a reconnect, a
 * restart, or on another instance. Bytes are written in parts of up to 256 KB, each in a short
 * transaction of its own that moves the offset past it only if the offset is still where this
 * write began: two requests writing the same upload (a browser that reconnected while its first
 * connection lingers on another instance) can never interleave, the second gets 409 and resumes
 * from the offset it then reads. No connection is held while waiting for a slow browser.
 */
export class PostgresUploadStore extends DataStore {
  constructor() {
    super();
    this.extensions = ['creation', 'creation-with-upload', 'termination', 'expiration'];
  }

  override async create(upload: Upload): Promise<Upload> {
    const uploader = uploaderContext.getStore();
    if (!uploader) throw new Error('resumable upload created outside a signed-in request');
    const described = describeUpload(upload.metadata, upload.size);
    await db().query(
      `INSERT INTO resumable_uploads (id, user_id, size, kind, mime_type, file_name, metadata, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      {
        bind: [
          upload.id,
          uploader.userId,
          upload.size,
          described.kind,
          described.mimeType,
          described.fileName,
          JSON.stringify(described.metadata),
          upload.creation_date,
        ],
      },
    );
    upload.metadata = described.metadata;
    return upload;
  }

  override async getUpload(id: string): Promise<Upload> {
    const [row] = await db().query<TUploadRow>(
      `SELECT id, user_id, size, "offset", metadata, created_at FROM resumable_uploads WHERE id = $1`,
      { bind: [id], type: QueryTypes.SELECT },
    );
    if (!row) throw uploadNotFound();
    return new Upload({
      id: row.id,
      size: Number(row.size),
      offset: Number(row.offset),
      metadata: row.metadata,
      creation_date: new Date(row.created_at).toISOString(),
    });
  }

  override async write(stream: Readable, id: string, offset: number): Promise<number> {
    let at = offset;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const flush = async () => {
      if (pendingBytes === 0) return;
      const data = Buffer.concat(pending, pendingBytes);
      pending = [];
      pendingBytes = 0;
      await db().transaction(async (transaction) => {
        const moved = await db().query(
          `UPDATE resumable_uploads SET "offset" = "offset" + $3
           WHERE id = $1 AND "offset" = $2 AND "offset" + $3 <= size AND attachment_id IS NULL RETURNING "offset"`,
          { bind: [id, at, data.length], type: QueryTypes.SELECT, transaction },
        );
        // Another request moved it (or the bytes would pass the declared length): this one stops.
        if (moved.length === 0) {
          throw new UploadRefusal(409, 'The upload has moved on: ask for its offset and resume from there.');
        }
        await db().query('INSERT INTO resumable_upload_parts (upload_id, start_offset, data) VALUES ($1, $2, $3)', {
          bind: [id, at, data],
          transaction,
        });
      });
      at += data.length;
    };
    try {
      for await (const piece of stream as AsyncIterable<Buffer>) {
        pending.push(piece);
        pendingBytes += piece.length;
        if (pendingBytes >= CHUNK_BYTES) await flush();
      }
    } finally {
      // A cut connection ends the stream early (tus ends it cleanly): what arrived is kept, so the
      // browser resumes from the last byte received, not from the last full part.
      await flush();
    }
    return at;
  }

  override async remove(id: string): Promise<void> {
    const [, result] = await db().query('DELETE FROM resumable_uploads WHERE id = $1', { bind: [id] });
    if ((result as { rowCount?: number }).rowCount === 0) throw uploadNotFound();
  }

  override getExpiration(): number {
    return RESUMABLE_UPLOAD_TTL_MS;
  }

  /** The same rule the hourly pruning applies (server/maintenance/prune-expired.ts). */
  override async deleteExpired(): Promise<number> {
    const [, result] = await db().query('DELETE FROM resumable_uploads WHERE created_at < $1', {
      bind: [new Date(Date.now() - RESUMABLE_UPLOAD_TTL_MS)],
    });
    return (result as { rowCount?: number }).rowCount ?? 0;
  }
}

/**
 * The bytes of a finished upload in order, a part at a time, on the caller's transaction; a gap
 * (which the offset rule makes impossible) is an error rather than a corrupt file.
 */
export async function* readUploadParts(id: string, transaction: Transaction): AsyncGenerator<Buffer> {
  let next = 0;
  for (;;) {
    const [part] = await db().query<{ start_offset: number; data: Buffer }>(
      'SELECT start_offset, data FROM resumable_upload_parts WHERE upload_id = $1 AND start_offset >= $2 ORDER BY start_offset LIMIT 1',
      { bind: [id, next], type: QueryTypes.SELECT, transaction },
    );
    if (!part) return;
    if (Number(part.start_offset) !== next) throw new Error(`upload ${id} has a gap at ${next}`);
    yield part.data;
    next += part.data.length;
  }
}
