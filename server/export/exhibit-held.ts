import type { TExportMessage } from './read-export';

// Whether the firm holds a file's bytes, and if not why, in words a court and the client can read
// (server/export/README.md "Evidence exports"): the same sentence in a bundle's manifest and in the transcript.

type TFile = Pick<TExportMessage['attachments'][number], 'state' | 'destroyed'>;

/** What was being made when the bytes were not there: a court bundle, or the transcript (a PDF export, alone or in a bundle). */
export type TMadeWhat = 'bundle' | 'record';

/** Whether the file's bytes are held, so a bundle holds them and the PDF can draw or hash them. */
export const isHeld = (file: TFile): boolean => file.state === 'stored' && !file.destroyed;

/**
 * Why the firm does not hold the file, as a phrase ("the provider's copy could not be
 * downloaded"); null when it does. A destroyed file is said so first: an erasure marks a file that
 * was still waiting for its download as failed, and what matters is that it was destroyed.
 */
export function notHeldReason(file: TFile, made: TMadeWhat): string | null {
  if (file.destroyed) return 'destroyed since it was received (for example under the retention policy)';
  if (file.state === 'pending')
    return `not yet downloaded from the provider when ${made === 'bundle' ? 'the bundle' : 'this record'} was made`;
  if (file.state === 'failed') return "the provider's copy could not be downloaded";
  if (file.state !== 'stored') return `its bytes were not stored (state: ${file.state})`;
  return null;
}
