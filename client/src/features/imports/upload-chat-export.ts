import { ZImportPreview, type TImportPreview } from '../../../../shared/import-preview';
import { readHttpErrorMessage } from '../../lib/http-error-message';

export const IMPORT_PATH = '/api/imports/whatsapp';

export type TExportUpload = {
  /** The server's preview; rejects with a sentence for the person, or with `CancelledImport`. */
  result: Promise<TImportPreview>;
  cancel: () => void;
};

export class CancelledImport extends Error {
  constructor() {
    super('The upload was cancelled.');
    this.name = 'CancelledImport';
  }
}

function messageOf(status: number, body: unknown): string {
  const sentence = readHttpErrorMessage(body);
  if (sentence) return sentence;
  if (status === 401) return 'Your session has ended: sign in again, then choose the export again.';
  return `The export could not be read (HTTP ${status}). Try again.`;
}

/**
 * Sends a WhatsApp export's bytes to `POST /api/imports/whatsapp` and reports how much has gone.
 * XMLHttpRequest rather than fetch: only it reports an upload's progress (an export with its photos
 * can be hundreds of megabytes). The browser reads the file from disk as it sends it.
 */
/** The preview of an export uploaded already (resumably, as other uploads: `/api/uploads`). */
export async function previewUploaded(attachmentId: number): Promise<TImportPreview> {
  const res = await fetch(IMPORT_PATH, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ attachmentId }),
  });
  const body = (await res.json().catch(() => null)) as unknown;
  if (!res.ok) throw new Error(messageOf(res.status, body));
  const parsed = ZImportPreview.safeParse(body);
  if (!parsed.success) throw new Error('The server’s answer could not be read. Reload the page and try again.');
  return parsed.data;
}

export function uploadChatExport(file: File, onProgress: (sent: number, total: number) => void): TExportUpload {
  const xhr = new XMLHttpRequest();
  const result = new Promise<TImportPreview>((resolve, reject) => {
    xhr.open('POST', IMPORT_PATH);
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
      const parsed = ZImportPreview.safeParse(body);
      if (!parsed.success) return reject(new Error('The server’s answer could not be read. Reload the page and try again.'));
      resolve(parsed.data);
    });
    xhr.addEventListener('error', () =>
      reject(new Error('The server could not be reached, or the connection dropped. Check the connection and try again.')),
    );
    xhr.addEventListener('abort', () => reject(new CancelledImport()));
    xhr.send(file);
  });
  return { result, cancel: () => xhr.abort() };
}
