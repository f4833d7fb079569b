import { createHash, randomBytes } from 'node:crypto';
import busboy from 'busboy';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { addMedia, generatePieces, MEDIA_PIECE, servingOf, takeDownloadPace } from './media-files';
import { ERROR_TITLES, errorBody } from './provider-errors';
import type { TRecordedRequest, TSendJson, TSimMedia, TSimState } from './sim-state';

// The provider's media endpoints: `GET /{media_id}` (the file's details and a foreign-looking url),
// that url's download (`/whatsapp_business/attachments/?mid=…`), and `POST /media` (multipart upload).

/** The path of a media download, as `GET /{media_id}` announces it. */
export const DOWNLOAD_PATH = '/whatsapp_business/attachments/';

/** `GET /{media_id}`: where to download the file (or the link a test gave it), and what it is. */
export function answerMediaLookup(media: TSimMedia, send: TSendJson): void {
  send(200, {
    messaging_product: 'whatsapp',
    url:
      servingOf(media)?.link ??
      `https://lookaside.example.invalid${DOWNLOAD_PATH}?mid=${media.id}&ext=${Date.now()}&hash=${randomBytes(6).toString('hex')}`,
    mime_type: media.mimeType,
    sha256: media.advertisedSha256Hex,
    file_size: media.size,
    id: media.id,
  });
}

/**
 * The download: the file in ~64 KB pieces, waiting for the app to drain each (and mediaChunkDelayMs);
 * a file registered with `bytesPerSecond` trickles at that rate, in small even slices; one with
 * `redirectTo` is a 302 there.
 */
export async function streamMedia(state: TSimState, res: ServerResponse, media: TSimMedia): Promise<void> {
  const redirectTo = servingOf(media)?.redirectTo;
  if (redirectTo) {
    res.writeHead(302, { location: redirectTo, 'content-type': 'application/json' });
    return void res.end('{}');
  }
  res.writeHead(200, { 'content-type': media.mimeType, 'content-length': String(media.size) });
  const pieces = media.bytes
    ? (function* (bytes: Buffer) {
        for (let i = 0; i < bytes.length; i += MEDIA_PIECE) yield bytes.subarray(i, i + MEDIA_PIECE);
      })(media.bytes)
    : generatePieces(media.id, media.size);
  const rate = takeDownloadPace(media);
  // Twenty slices a second at a trickle: a rate measured over any second sees it steady.
  const slice = rate ? Math.max(1, Math.floor(rate / 20)) : MEDIA_PIECE;
  const started = Date.now();
  let sent = 0;
  for (const piece of pieces) {
    for (let at = 0; at < piece.length; at += slice) {
      if (res.destroyed) return;
      const part = piece.subarray(at, at + slice);
      if (!res.write(part)) await drained(res);
      sent += part.length;
      const due = rate ? started + (sent / rate) * 1000 - Date.now() : 0;
      if (due > 0) await sleep(due);
    }
    if (state.options.mediaChunkDelayMs) await sleep(state.options.mediaChunkDelayMs);
  }
  res.end();
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves when the app has taken what was written (or hung up). */
function drained(res: ServerResponse): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** `POST /media`: multipart `file`, `type`, `messaging_product` → `{id}`, parsed as it streams. */
export function receiveUpload(state: TSimState, req: IncomingMessage, recorded: TRecordedRequest, send: TSendJson): Promise<void> {
  return new Promise<void>((resolve) => {
    const fields: Record<string, string> = {};
    let file: { bytes: Buffer; fileName: string; mimeType: string } | null = null;
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { files: 1, fileSize: 101 * 1024 * 1024 } });
    } catch {
      req.resume();
      send(400, errorBody(400, 'cloud', 'Expected multipart/form-data', ERROR_TITLES[400]!));
      return resolve();
    }
    // An upload cut off mid-body fails that request only: the stream errors are all handled here.
    let settled = false;
    const fail = () => {
      if (settled) return;
      settled = true;
      send(400, errorBody(400, 'cloud', 'Malformed or incomplete multipart body', ERROR_TITLES[400]!));
      resolve();
    };
    req.on('error', fail);
    req.on('aborted', fail);
    parser.on('field', (name, value) => (fields[name] = value));
    parser.on('file', (name, stream, info) => {
      const parts: Buffer[] = [];
      stream.on('error', fail);
      stream.on('data', (part: Buffer) => parts.push(part));
      stream.on('end', () => {
        if (name === 'file') file = { bytes: Buffer.concat(parts), fileName: info.filename ?? '', mimeType: info.mimeType };
      });
    });
    parser.on('close', () => {
      if (settled) return;
      settled = true;
      void (async () => {
        await state.uploadGate;
        const got = file;
        recorded.body = {
          type: fields.type,
          messaging_product: fields.messaging_product,
          fileName: got?.fileName,
          mimeType: got?.mimeType,
          size: got?.bytes.length,
          sha256: got ? createHash('sha256').update(got.bytes).digest('hex') : undefined,
        };
        if (!got || fields.messaging_product !== 'whatsapp' || !fields.type) {
          send(400, errorBody(400, 'cloud', 'file, type and messaging_product=whatsapp are required', ERROR_TITLES[400]!));
        } else {
          const { id } = await addMedia(state, { bytes: got.bytes, mimeType: fields.type, fileName: got.fileName });
          send(200, { id });
        }
        resolve();
      })();
    });
    parser.on('error', fail);
    req.pipe(parser);
  });
}
