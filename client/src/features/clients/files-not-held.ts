import type { TAttachmentState } from '../../../../shared/communication';

type TDocumentState = { state: TAttachmentState; erasedAt?: Date | null };

const counted = new Intl.NumberFormat('en-GB');
const files = (n: number) => `${counted.format(n)} ${n === 1 ? 'file' : 'files'}`;

/**
 * What the court bundle will list as missing rather than hold, said before it is asked for (server/export/README.md
 * "Evidence exports": a file whose bytes the firm does not hold goes under the manifest's `missing`):
 * files still downloading or whose download failed, and files erased under the retention policy.
 * Null when every file is held.
 */
export function describeFilesNotHeld(documents: readonly TDocumentState[]): string | null {
  const erased = documents.filter((d) => d.erasedAt).length;
  const notYet = documents.filter((d) => !d.erasedAt && d.state !== 'stored').length;
  const sentences = [
    notYet
      ? `${files(notYet)} ${notYet === 1 ? 'is' : 'are'} not held by the firm yet (still downloading or failed): ${notYet === 1 ? 'it' : 'they'} will be listed as missing in the bundle.`
      : null,
    erased
      ? `${files(erased)} ${erased === 1 ? 'was' : 'were'} erased under the retention policy: ${erased === 1 ? 'it' : 'they'} will be listed as missing in the bundle.`
      : null,
  ].filter((s): s is string => s !== null);
  return sentences.length ? sentences.join(' ') : null;
}
