import { ZImportPreview, type TImportPreview } from '../../../../shared/import-preview';
import { readHttpErrorMessage } from '../../lib/http-error-message';
import { sendFile, type TFileSend } from '../../lib/send-file';

export { CancelledSend as CancelledImport } from '../../lib/send-file';

export const IMPORT_PATH = '/api/imports/whatsapp';

function messageOf(status: number, body: unknown): string {
  const sentence = readHttpErrorMessage(body);
  if (sentence) return sentence;
  if (status === 401) return 'Your session has ended: sign in again, then choose the export again.';
  return `The export could not be read (HTTP ${status}). Try again.`;
}

function previewOf(status: number, body: unknown): TImportPreview {
  if (status !== 200) throw new Error(messageOf(status, body));
  const parsed = ZImportPreview.safeParse(body);
  if (!parsed.success) throw new Error('The server’s answer could not be read. Reload the page and try again.');
  return parsed.data;
}

/** The preview of an export uploaded already (resumably, as other uploads: `/api/uploads`). */
export async function previewUploaded(attachmentId: number): Promise<TImportPreview> {
  const res = await fetch(IMPORT_PATH, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ attachmentId }),
  });
  return previewOf(res.status, (await res.json().catch(() => null)) as unknown);
}

/** Sends a WhatsApp export's bytes whole to `POST /api/imports/whatsapp` (one too large to upload resumably), with progress. */
export function uploadChatExport(file: File, onProgress: (sent: number, total: number) => void): TFileSend<TImportPreview> {
  return sendFile(IMPORT_PATH, file, onProgress, previewOf);
}
