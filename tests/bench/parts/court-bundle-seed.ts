import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { CHUNK_BYTES } from '../../../server/media/media-store';
import { query } from '../bench-support';

// The court bundle's data (part 12): a client's chat with files whose bytes are really stored, in
// `attachment_chunks` as the media store writes them, so the bundle copies every file and the
// manifest check can compare it with what was stored. Everything bulk is one SQL statement.

/** What one client of the part holds. */
export type TCourtClientSpec = {
  name: string;
  messages: number;
  files: number;
  /** Of the files, how many are photos (real JPEG and PNG bytes, so the transcript embeds them). */
  photos: number;
  /** Each document's size on average (each varies by up to ±32 KB, so no two are alike). */
  fileBytes: number;
};

export type TCourtClient = TCourtClientSpec & { clientId: number; storedBytes: number };

/** Every exhibit of a client's export as the database has it: its number, stored hash and size. */
export type TStoredExhibit = { exhibit: number; sha256: string; size: number };

/**
 * A client's chat as part 8 seeds one (alternating sides, receipts on what the firm sent), one in
 * ten messages a reply quoting the message three before it, and `files` of the messages carrying a
 * file: the first `photos` of them photos, the rest documents. The firm's side is sent by `senderId`.
 */
export async function seedCourtClient(url: string, spec: TCourtClientSpec, base: Buffer, senderId: number): Promise<TCourtClient> {
  const [row] = await query<{ id: number }>(
    url,
    `INSERT INTO clients (name, created_at, updated_at) VALUES ($1, now(), now()) RETURNING id`,
    [spec.name],
  );
  const clientId = row!.id;
  const every = Math.max(1, Math.floor(spec.messages / spec.files));
  await query(
    url,
    `
    INSERT INTO communications (type, direction, status, body, client_id, peer_phone, metadata, receipts, provider_timestamp, sent_by, created_at, updated_at)
    SELECT 'chat', CASE WHEN g % 2 = 0 THEN 'inbound' ELSE 'outbound' END, CASE WHEN g % 2 = 1 THEN 'read' END,
           CASE WHEN f.file = 0 THEN 'Message ' || g || ': thank you for the documents, we will review the draft agreement and come back to you before the hearing on Friday.'
                WHEN f.file <= $4 THEN 'Photo ' || f.file || ' of the water damage in the kitchen'
                ELSE 'Signed statement ' || f.file END,
           $1::int, '447700900123',
           jsonb_strip_nulls(jsonb_build_object(
             'chat_msg_id', 'wamid.court-' || $1::int || '-' || g,
             'kind', CASE WHEN f.file = 0 THEN NULL WHEN f.file <= $4 THEN 'image' ELSE 'document' END,
             'context_id', CASE WHEN g % 10 = 3 AND g > 3 THEN 'wamid.court-' || $1::int || '-' || (g - 3) END)),
           CASE WHEN g % 2 = 1 THEN jsonb_build_object('sent', jsonb_build_object('at', now()), 'delivered', jsonb_build_object('at', now()), 'read', jsonb_build_object('at', now())) ELSE '{}'::jsonb END,
           CASE WHEN g % 2 = 0 THEN now() - ($2::int - g) * interval '1 minute' END, CASE WHEN g % 2 = 1 THEN $6::int END,
           now() - ($2::int - g) * interval '1 minute', now()
    FROM generate_series(1, $2::int) g
    CROSS JOIN LATERAL (SELECT CASE WHEN g % $3::int = 0 AND g / $3::int <= $5::int THEN g / $3::int ELSE 0 END AS file) f`,
    [clientId, spec.messages, every, spec.photos, spec.files, senderId],
  );
  // Photos alternate JPEG and PNG; documents are PDFs by name (their bytes are not: a bundle copies them as they are).
  await query(
    url,
    `
    INSERT INTO attachments (communication_id, kind, mime_type, file_name, state)
    SELECT m.id, m.kind,
           CASE WHEN m.kind = 'document' THEN 'application/pdf' WHEN m.n % 2 = 1 THEN 'image/jpeg' ELSE 'image/png' END,
           CASE WHEN m.kind = 'document' THEN 'Witness statement ' || m.id || '.pdf'
                WHEN m.n % 2 = 1 THEN 'Kitchen ' || m.id || '.jpg' ELSE 'Kitchen ' || m.id || '.png' END,
           'stored'
    FROM (SELECT id, metadata->>'kind' AS kind, row_number() OVER (ORDER BY id) AS n
          FROM communications WHERE client_id = $1 AND metadata->>'kind' IN ('image', 'document')) m`,
    [clientId],
  );
  // Documents: one 256 KB value built once and stamped with the file's id and the chunk's number,
  // so every chunk of every file differs, and each file's length varies around `fileBytes`.
  await query(
    url,
    `
    INSERT INTO attachment_chunks (attachment_id, seq, data)
    SELECT a.id, s.seq,
           overlay(substring($1::bytea FROM 1 FOR least(${CHUNK_BYTES}, f.size - s.seq * ${CHUNK_BYTES})) PLACING int4send(a.id) || int4send(s.seq) FROM 1 FOR 8)
    FROM attachments a
    JOIN communications m ON m.id = a.communication_id
    CROSS JOIN LATERAL (SELECT $3::int + (a.id * 7919) % 65536 - 32768 AS size) f
    CROSS JOIN LATERAL generate_series(0, (f.size - 1) / ${CHUNK_BYTES}) s(seq)
    WHERE m.client_id = $2 AND a.kind = 'document'`,
    [base, clientId, spec.fileBytes],
  );
  const photos = await query<{ id: number; mime_type: string }>(
    url,
    `SELECT a.id, a.mime_type FROM attachments a JOIN communications m ON m.id = a.communication_id
     WHERE m.client_id = $1 AND a.kind = 'image' ORDER BY a.id`,
    [clientId],
  );
  for (const photo of photos) {
    const bytes = await drawPhoto(photo.id, photo.mime_type);
    for (let seq = 0; seq * CHUNK_BYTES < bytes.length; seq++) {
      await query(url, 'INSERT INTO attachment_chunks (attachment_id, seq, data) VALUES ($1, $2, $3)', [
        photo.id,
        seq,
        bytes.subarray(seq * CHUNK_BYTES, (seq + 1) * CHUNK_BYTES),
      ]);
    }
  }
  // The true size and hash of what is stored, as the media store records them, one file at a time
  // inside the statement (a 4 MB value each, never all of them at once).
  await query(
    url,
    `
    UPDATE attachments a SET (size, sha256) = (
      SELECT sum(octet_length(c.data))::bigint, encode(sha256(string_agg(c.data, ''::bytea ORDER BY c.seq)), 'hex')
      FROM attachment_chunks c WHERE c.attachment_id = a.id)
    FROM communications m WHERE m.id = a.communication_id AND m.client_id = $1`,
    [clientId],
  );
  const [stored] = await query<{ bytes: string }>(
    url,
    `SELECT coalesce(sum(a.size), 0)::text AS bytes FROM attachments a JOIN communications m ON m.id = a.communication_id WHERE m.client_id = $1`,
    [clientId],
  );
  return { ...spec, clientId, storedBytes: Number(stored!.bytes) };
}

/** The 256 KB a document chunk is made of: random, so compressing a bundle gains nothing, as with real scans. */
export function documentChunkBase(): Buffer {
  return randomBytes(CHUNK_BYTES);
}

/** A real photo, different for each id: a noisy JPEG (about 0.3 MB) or a flat PNG. */
async function drawPhoto(id: number, mimeType: string): Promise<Buffer> {
  const background = { r: (id * 37) % 256, g: (id * 91) % 256, b: (id * 53) % 256 };
  if (mimeType === 'image/png')
    return sharp({ create: { width: 800, height: 600, channels: 3, background } })
      .png()
      .toBuffer();
  return sharp({ create: { width: 1024, height: 768, channels: 3, background, noise: { type: 'gaussian', mean: 128, sigma: 20 } } })
    .jpeg({ quality: 80 })
    .toBuffer();
}

/**
 * Every file of a client's export, numbered as the export numbers them (stored time, message id,
 * then attachment id: server/export/README.md "Evidence exports"), with the hash and size the database stored.
 */
export async function listStoredExhibits(url: string, clientId: number): Promise<TStoredExhibit[]> {
  const rows = await query<{ exhibit: number; sha256: string; size: string }>(
    url,
    `SELECT row_number() OVER (ORDER BY m.created_at, m.id, a.id)::int AS exhibit, a.sha256, a.size::text AS size
     FROM attachments a JOIN communications m ON m.id = a.communication_id
     WHERE m.client_id = $1 AND m.type IN ('chat', 'chat_note')
     ORDER BY exhibit`,
    [clientId],
  );
  return rows.map((r) => ({ exhibit: r.exhibit, sha256: r.sha256, size: Number(r.size) }));
}
