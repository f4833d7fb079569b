import { readHttpErrorMessage } from '../../lib/http-error-message';
import { ZVerifyResult, type TVerifyResult } from './verify-result';

export const VERIFY_PATH = '/api/export/verify';
/** The largest file the server checks (server/export/README.md "Evidence exports"): a bundle of 2 GB of files fits with room. */
export const MAX_VERIFY_BYTES = 5 * 1024 ** 3;

export type TVerifyUpload = {
  /** The server's answer; rejects with a sentence for the person, or with `CancelledUpload`. */
  result: Promise<TVerifyResult>;
  cancel: () => void;
};

export class CancelledUpload extends Error {
  constructor() {
    super('The check was cancelled.');
    this.name = 'CancelledUpload';
  }
}

function messageOf(status: number, body: unknown): string {
  const sentence = readHttpErrorMessage(body);
  if (sentence) return sentence;
  if (status === 401) return 'Your session has ended: sign in again, then check the file again.';
  if (status === 413) return 'That file is larger than any export Firm Chat makes (5 GiB at most), so it cannot be checked.';
  return `The file could not be checked (HTTP ${status}). Try again.`;
}

/**
 * Sends a file's bytes as they are to `POST /api/export/verify` and reports how much has gone.
 * XMLHttpRequest rather than fetch: only it reports an upload's progress, and a bundle can be
 * gigabytes. The browser reads the file from disk as it sends it; the page never holds it.
 */
export function uploadForVerification(file: File, onProgress: (sent: number, total: number) => void): TVerifyUpload {
  const xhr = new XMLHttpRequest();
  const result = new Promise<TVerifyResult>((resolve, reject) => {
    xhr.open('POST', VERIFY_PATH);
    xhr.setRequestHeader('Content-Type', 'application/octet-stream');
    xhr.setRequestHeader('X-File-Name', encodeURIComponent(file.name));
    xhr.responseType = 'text';
    xhr.upload.addEventListener('progress', (e) => onProgress(e.loaded, e.lengthComputable ? e.total : file.size));
    xhr.addEventListener('load', () => {
      let body: unknown = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        // not JSON: said below
      }
      if (xhr.status !== 200) return reject(new Error(messageOf(xhr.status, body)));
      const parsed = ZVerifyResult.safeParse(body);
      if (!parsed.success) return reject(new Error('The server’s answer could not be read. Reload the page and check the file again.'));
      resolve(parsed.data);
    });
    xhr.addEventListener('error', () =>
      reject(new Error('The server could not be reached, or the connection dropped. Check the connection and try again.')),
    );
    xhr.addEventListener('abort', () => reject(new CancelledUpload()));
    xhr.send(file);
  });
  return { result, cancel: () => xhr.abort() };
}
