import { Upload, type DetailedError } from 'tus-js-client';
import { sendKindOf, tooLargeMessage, UPLOAD_LIMITS, uploadKindOf, type TUploadedFile } from '../../../../shared/media-limits';
import { readHttpErrorMessage } from '../../lib/http-error-message';
import { describeRisk } from './file-risk';

// A person's choices about a file travel with the File object the composer holds: choosing gives a
// new File (the same bytes, not copied), so the composer sees a change and checks the file again.
const sentAsDocument = new WeakSet<File>();
const riskAccepted = new WeakSet<File>();

function copyOf(file: File): File {
  const copy = new File([file], file.name, { type: file.type, lastModified: file.lastModified });
  if (sentAsDocument.has(file)) sentAsDocument.add(copy);
  if (riskAccepted.has(file)) riskAccepted.add(copy);
  return copy;
}

/** The same file, to be sent as a document (a photo or video over its own limit may be, up to the document limit). */
export function asDocument(file: File): File {
  const copy = copyOf(file);
  sentAsDocument.add(copy);
  return copy;
}

/** The same file, its warning (a program, a web page) read and accepted. */
export function acceptRisk(file: File): File {
  const copy = copyOf(file);
  riskAccepted.add(copy);
  return copy;
}

export function isSentAsDocument(file: File): boolean {
  return sentAsDocument.has(file);
}

/** How the file will be sent: its own kind, or a document when the person chose that. */
export function kindToSend(file: File): TUploadedFile['kind'] {
  return sendKindOf(file.type || 'application/octet-stream', { asDocument: sentAsDocument.has(file) });
}

/** The warning still to be answered before this file may be sent, or null. */
export function pendingRisk(file: File): string | null {
  return riskAccepted.has(file) ? null : describeRisk(file);
}

/** Over its own limit but within a document's, and not a document already: it may go as one. */
export function canSendAsDocument(file: File): boolean {
  const kind = kindToSend(file);
  return kind !== 'document' && file.size > UPLOAD_LIMITS[kind] && file.size <= UPLOAD_LIMITS.document;
}

/**
 * Why this file cannot be sent yet, before anything is uploaded: empty, a warning not yet answered,
 * or over its limit (with the limit); null when it may be sent.
 */
export function checkUploadSize(file: File): string | null {
  if (file.size === 0) return 'The file is empty.';
  const risk = pendingRisk(file);
  if (risk) return risk;
  const kind = kindToSend(file);
  return file.size > UPLOAD_LIMITS[kind] ? tooLargeMessage(kind, UPLOAD_LIMITS[kind]) : null;
}

/** Waits between tries after a dropped connection; each try resumes from what the server holds. */
const RETRY_DELAYS_MS = [0, 1_000, 3_000, 5_000, 10_000, 20_000, 30_000];
/** Each PATCH carries at most this: a proxy that holds whole bodies never holds a large one. */
const CHUNK_BYTES = 5 * 1024 * 1024;

/**
 * Uploads with tus (`/api/uploads`), resumable: a dropped connection is retried from the last byte
 * the server stored, and the upload's address is kept in this browser (by the file's name, type,
 * size and date, and whether it goes as a document), so picking the same file after a reload
 * resumes it. Resolves with the stored upload; rejects with the server's sentence (413 says the
 * limit) or a plain one when the network failed for good.
 */
export function uploadFile(file: File, onProgress: (fraction: number) => void): Promise<TUploadedFile> {
  const endpoint = new URL('/api/uploads', window.location.href).href;
  const goesAsDocument = sentAsDocument.has(file);
  return new Promise((resolve, reject) => {
    const upload = new Upload(file, {
      endpoint,
      metadata: {
        filename: file.name,
        filetype: file.type || 'application/octet-stream',
        ...(goesAsDocument ? { as: 'document' } : {}),
      },
      chunkSize: CHUNK_BYTES,
      retryDelays: RETRY_DELAYS_MS,
      // The default also gives up on 429 and 408: here both mean "try again in a moment".
      onShouldRetry: (error) => {
        const status = error.originalResponse?.getStatus() ?? 0;
        return status === 0 || status >= 500 || [408, 409, 423, 429].includes(status);
      },
      fingerprint: (f: File) =>
        Promise.resolve(
          ['firm-chat', goesAsDocument ? 'document' : uploadKindOf(f.type), f.name, f.type, f.size, f.lastModified, endpoint].join('/'),
        ),
      removeFingerprintOnSuccess: true,
      onProgress: (sent, total) => onProgress(total > 0 ? sent / total : 0),
      onSuccess: () => {
        void readUploaded(upload.url!).then(resolve, reject);
      },
      onError: (error) => reject(new Error(sentenceOf(error))),
    });
    void upload.findPreviousUploads().then(
      (previous) => {
        if (previous[0]) upload.resumeFromPreviousUpload(previous[0]);
        upload.start();
      },
      () => upload.start(),
    );
  });
}

/** The attachment the finished upload became (asked for, so an answer lost at the very end does not matter). */
async function readUploaded(uploadUrl: string): Promise<TUploadedFile> {
  const res = await fetch(`${uploadUrl}/attachment`, { headers: { accept: 'application/json' } });
  const body = (await res.json().catch(() => null)) as unknown;
  if (res.ok && body) return body as TUploadedFile;
  throw new Error(readHttpErrorMessage(body) ?? `The file could not be uploaded (HTTP ${res.status}).`);
}

function sentenceOf(error: Error | DetailedError): string {
  const response = 'originalResponse' in error ? error.originalResponse : null;
  if (!response) return 'The file could not be uploaded: the connection failed. Try again.';
  try {
    const message = readHttpErrorMessage(JSON.parse(response.getBody()));
    if (message) return message;
  } catch {
    // not JSON: said plainly below
  }
  return `The file could not be uploaded (HTTP ${response.getStatus()}).`;
}

/**
 * Forgets the addresses of unfinished uploads kept in this browser (tus-js-client keeps them in
 * localStorage under `tus::`): at sign-out they go with the person's other unsent work. The server
 * holds each upload for its owner only, so a leftover address is useless to anyone else, but it
 * names the file.
 */
export function forgetResumableUploads(): void {
  try {
    for (const key of Object.keys(localStorage)) if (key.startsWith('tus::')) localStorage.removeItem(key);
  } catch {
    // storage refused: nothing was kept there either
  }
}
