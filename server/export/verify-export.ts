import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { verifySignature } from '../signing';
import { UncheckableZip } from './bundle-check-problems';
import { checkEntries } from './check-bundle-entries';
import { checkSigned, type TPublicKey } from './export-signature';
import type { TSpooled } from './hashing-spool';
import { readManifest } from './read-bundle-manifest';
import { sniffKind } from './sniff-export-kind';
import type { TFileCheck } from './verify-result-types';

// "Verify a copy" (server/export/README.md "Evidence exports"): what a file is, by its content, and for a court
// bundle whether every file still matches its manifest, and every exhibit what its messages.json
// recorded (a manifest edited to match a changed file still disagrees). Pure file checks, shared by
// `POST /api/export/verify` and `npm run export:verify` (which works with no server or database).
// The file is anyone's: every loop over what it holds is linear and lets the event loop turn
// (event-loop-turns.ts), so a health check or another request never waits behind a check.

// What `npm run export:verify` and the tests take from here, besides checkExportFile.
export { NOT_IN_ZIP, UNACCOUNTED } from './bundle-check-problems';
export { YIELD_EVERY } from './event-loop-turns';
export type { TFileCheck } from './verify-result-types';

async function hashFile(path: string): Promise<TSpooled> {
  const hash = createHash('sha256');
  let bytes = 0;
  await pipeline(createReadStream(path), async (source: AsyncIterable<Buffer>) => {
    for await (const chunk of source) {
      hash.update(chunk);
      bytes += chunk.length;
    }
  });
  return { sha256: hash.digest('hex'), bytes };
}

/**
 * What a file is and, for a ZIP, whether every file in it matches its manifest and its manifest.sig
 * verifies under `key` (the firm's public key; null: not checked). `known` is the file's hash and
 * size when the caller computed them while receiving it. Never throws for a malformed or hostile
 * file: its `problem` says what is wrong.
 */
export async function checkExportFile(path: string, known?: TSpooled, key: TPublicKey | null = null): Promise<TFileCheck> {
  const { sha256, bytes } = known ?? (await hashFile(path));
  const { kind, plainJson, claimsExport } = await sniffKind(path, bytes);
  const none = {
    manifest: null,
    manifestSha256: null,
    parts: { transcriptSha256: null, jsonSha256: null },
    problem: null,
    signature: null,
  };
  if (kind !== 'zip') return { kind, sha256, bytes, plainJson, claimsExport, ...none };
  const seen = { bundlePart: false };
  try {
    const read = await readManifest(path, bytes, seen);
    const { manifest, parts } = await checkEntries(path, read.manifest);
    const signature = checkSigned(
      (firm) => verifySignature(read.bytes, read.signature ?? '', firm.publicKeyPem),
      { signature: read.signature, fingerprint: read.manifest.signingKey?.fingerprint ?? null },
      key,
    );
    return { kind, sha256, bytes, plainJson, claimsExport: true, manifest, manifestSha256: read.sha256, parts, problem: null, signature };
  } catch (error) {
    if (!(error instanceof UncheckableZip)) throw error;
    return { kind, sha256, bytes, plainJson, claimsExport: seen.bundlePart, ...none, problem: error.message };
  }
}
