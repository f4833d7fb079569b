import { open } from 'node:fs/promises';
import type { TExportKind } from './verify-result-types';

/** What is read of a file to tell what it is. */
const SNIFF_BYTES = 64 * 1024;
/** What is read of a PDF's end for its creator: pdfkit writes its Info dictionary after the pages, before the fonts. */
const PDF_TAIL_BYTES = 1024 * 1024;

/** Up to `length` bytes of the file from `position`. */
async function readAt(path: string, position: number, length: number): Promise<Buffer> {
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await file.read(buffer, 0, length, position);
    return buffer.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}

/** The creator pdfkit writes into the transcript's Info dictionary (render-pdf.ts), as the PDF holds it. */
const FIRM_CHAT_CREATOR = Buffer.from('(Firm Chat)', 'latin1');

/**
 * What the file is by its first bytes: a ZIP, a PDF, or a JSON object with `exportedAt` (an export
 * or a manifest); `plainJson` for other JSON (read whole when it is within the bytes read).
 * `claimsExport` for JSON with an export's header, and for a PDF whose creator is Firm Chat (looked
 * for where pdfkit writes it: near the start of a short PDF, before the fonts at the end of a long one).
 */
export async function sniffKind(path: string, bytes: number): Promise<{ kind: TExportKind; plainJson: boolean; claimsExport: boolean }> {
  const read = await readAt(path, 0, SNIFF_BYTES + 1);
  const whole = read.length <= SNIFF_BYTES;
  const head = read.subarray(0, Math.min(read.length, SNIFF_BYTES));
  const magic = head.subarray(0, 4).toString('latin1');
  if (magic === 'PK\x03\x04' || magic === 'PK\x05\x06') return { kind: 'zip', plainJson: false, claimsExport: false };
  if (head.subarray(0, 5).toString('latin1') === '%PDF-') {
    const tail = bytes > SNIFF_BYTES ? await readAt(path, Math.max(0, bytes - PDF_TAIL_BYTES), PDF_TAIL_BYTES) : Buffer.alloc(0);
    return { kind: 'pdf', plainJson: false, claimsExport: head.includes(FIRM_CHAT_CREATOR) || tail.includes(FIRM_CHAT_CREATOR) };
  }
  const text = head
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  // Its header comes first (server/export/README.md "Evidence exports"): a large export need not be read whole to tell.
  if (text.startsWith('{') && /"exportedAt"\s*:/.test(text)) return { kind: 'json', plainJson: false, claimsExport: true };
  return { kind: 'unknown', plainJson: whole && isJson(text), claimsExport: false };
}

function isJson(text: string): boolean {
  if (!/^[[{]/.test(text)) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
