import { nextTurn, YIELD_EVERY } from './event-loop-turns';
import type { TVerifyResult } from './verify-result-types';

/**
 * The answer as JSON, its rows serialized a batch at a time: a manifest can list a quarter of a
 * million files, and the event loop keeps turning while they are written.
 */
export async function serializeVerifyResult(result: TVerifyResult): Promise<string> {
  const { manifest, ...rest } = result;
  if (!manifest) return JSON.stringify(result);
  const { files, ...head } = manifest;
  const rows: string[] = [];
  for (let i = 0; i < files.length; i += YIELD_EVERY) {
    if (i) await nextTurn();
    rows.push(
      files
        .slice(i, i + YIELD_EVERY)
        .map((file) => JSON.stringify(file))
        .join(','),
    );
  }
  return `${JSON.stringify(rest).slice(0, -1)},"manifest":${JSON.stringify(head).slice(0, -1)},"files":[${rows.join(',')}]}}`;
}
