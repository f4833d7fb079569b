import { readHttpErrorMessage } from '../../lib/http-error-message';
import { sendFile, type TFileSend } from '../../lib/send-file';
import { ZVerifyResult, type TVerifyResult } from './verify-result';

export { CancelledSend as CancelledUpload } from '../../lib/send-file';

export const VERIFY_PATH = '/api/export/verify';
/** The largest file the server checks (server/export/README.md "Evidence exports"): a bundle of 2 GB of files fits with room. */
export const MAX_VERIFY_BYTES = 5 * 1024 ** 3;

function messageOf(status: number, body: unknown): string {
  const sentence = readHttpErrorMessage(body);
  if (sentence) return sentence;
  if (status === 401) return 'Your session has ended: sign in again, then check the file again.';
  if (status === 413) return 'That file is larger than any export Firm Chat makes (5 GiB at most), so it cannot be checked.';
  return `The file could not be checked (HTTP ${status}). Try again.`;
}

/** Sends a file's bytes as they are to `POST /api/export/verify` and reports how much has gone. */
export function uploadForVerification(file: File, onProgress: (sent: number, total: number) => void): TFileSend<TVerifyResult> {
  return sendFile(VERIFY_PATH, file, onProgress, (status, body) => {
    if (status !== 200) throw new Error(messageOf(status, body));
    const parsed = ZVerifyResult.safeParse(body);
    if (!parsed.success) throw new Error('The server’s answer could not be read. Reload the page and check the file again.');
    return parsed.data;
  });
}
