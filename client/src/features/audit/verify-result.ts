import * as z from 'zod/mini';
import { formatBytes } from '../../../../shared/media-limits';
import { formatDateTime } from '../../lib/format';

// What `POST /api/export/verify` answers (server/export/README.md "Evidence exports"). A plain HTTP route, not a
// procedure, so its type does not come with the router's: the answer is checked before it is drawn.
const ZFormat = z.enum(['pdf', 'json', 'zip']);

export const ZVerifyResult = z.object({
  fileName: z.nullable(z.string()),
  kind: z.enum(['zip', 'pdf', 'json', 'unknown']),
  sha256: z.string(),
  bytes: z.number(),
  export: z.nullable(
    z.object({
      auditEventId: z.number(),
      at: z.string(),
      by: z.object({ id: z.nullable(z.number()), name: z.string() }),
      subject: z.object({ type: z.enum(['client', 'case']), id: z.number(), name: z.string() }),
      format: ZFormat,
      part: z.nullable(z.enum(['transcript.pdf', 'messages.json', 'manifest.json'])),
    }),
  ),
  // A file the firm holds (an exhibit taken out of a bundle, a file saved from a conversation).
  storedFile: z.nullable(
    z.object({
      attachmentId: z.number(),
      fileName: z.nullable(z.string()),
      mimeType: z.string(),
      bytes: z.number(),
      direction: z.nullable(z.enum(['inbound', 'outbound'])),
      at: z.string(),
      subject: z.object({ type: z.literal('client'), id: z.number(), name: z.string() }),
      caseId: z.nullable(z.number()),
      // Other files the firm holds with the same bytes.
      others: z.optional(z.number()),
    }),
  ),
  manifest: z.nullable(
    z.object({
      subject: z.unknown(),
      exportedAt: z.unknown(),
      exportedBy: z.unknown(),
      auditHead: z.unknown(),
      files: z.array(
        z.object({
          path: z.string(),
          sha256: z.string(),
          bytes: z.number(),
          found: z.boolean(),
          matches: z.boolean(),
          // The SHA-256 of the bytes the ZIP holds under that path (null when it holds none).
          actualSha256: z.nullable(z.string()),
          // What is wrong with it, in a few words ("differs from the manifest"; null when nothing is).
          problem: z.nullable(z.string()),
        }),
      ),
      missing: z.array(z.object({ exhibit: z.number(), name: z.string(), reason: z.string() })),
      extra: z.array(z.string()),
      allMatch: z.boolean(),
    }),
  ),
  verdict: z.enum(['genuine', 'altered', 'unknown']),
  summary: z.string(),
});

export type TVerifyResult = z.infer<typeof ZVerifyResult>;
export type TVerifiedFile = NonNullable<TVerifyResult['manifest']>['files'][number];
export type TStoredFile = NonNullable<TVerifyResult['storedFile']>;

/**
 * How a file listed in the manifest compares with the bytes in the ZIP. The server's `matches` says
 * it all: bytes that are the manifest's but not what messages.json recorded (a manifest edited to
 * match) do not match; a difference the bundle itself declared (its list of missing files) does.
 */
export function checkOf(file: Pick<TVerifiedFile, 'found' | 'matches'>): 'matches' | 'differs' | 'missing' {
  if (!file.found) return 'missing';
  return file.matches ? 'matches' : 'differs';
}

/** The server's few words on a file ("differs from the manifest") as a sentence: "Differs from the manifest." */
export function problemSentence(problem: string): string {
  const trimmed = problem.trim();
  return `${trimmed.charAt(0).toUpperCase()}${trimmed.slice(1)}${/[.!?]$/.test(trimmed) ? '' : '.'}`;
}

const counted = new Intl.NumberFormat('en-GB');
const GB = 1024 ** 3;

/** "1.25 GB" past a gigabyte (a bundle), else as files are sized elsewhere ("3.6 KB"). */
export function formatSize(bytes: number): string {
  return bytes >= GB ? `${(bytes / GB).toFixed(2)} GB` : formatBytes(bytes);
}

/**
 * The line above a ZIP's table: how many of the files its manifest lists are wrong, and how
 * ("1 of 9 files listed does not match", "2 of 9 files listed are missing", "… does not match and
 * 1 is missing"), and how many entries the manifest does not list. `known`: the manifest is the
 * one the trail recorded; otherwise agreeing with it is only agreeing with what the ZIP says of itself.
 */
export function describeManifestCheck(manifest: Pick<NonNullable<TVerifyResult['manifest']>, 'files' | 'extra'>, known = true): string {
  const listed = manifest.files.length;
  const differ = manifest.files.filter((f) => checkOf(f) === 'differs').length;
  const missing = manifest.files.filter((f) => checkOf(f) === 'missing').length;
  const extra = manifest.extra.length;
  const files = `${counted.format(listed)} ${listed === 1 ? 'file' : 'files'}`;
  if (!differ && !missing && !extra) {
    return known
      ? `All ${files} the manifest lists are there, unchanged, and nothing was added.`
      : `The ${files} are as this manifest lists them, and nothing was added; but whoever made the ZIP may have written the manifest.`;
  }
  const ofListed = `of ${files} listed`;
  const wrong = [
    differ ? `${counted.format(differ)} ${ofListed} ${differ === 1 ? 'does' : 'do'} not match` : null,
    missing ? `${counted.format(missing)} ${differ ? '' : `${ofListed} `}${missing === 1 ? 'is' : 'are'} missing` : null,
  ].filter((part): part is string => part !== null);
  const head = wrong.length ? wrong.join(' and ') : known ? 'Every file listed matches' : 'Every file is as listed';
  const added = extra ? `; ${counted.format(extra)} ${extra === 1 ? 'entry is' : 'entries are'} not in the manifest` : '';
  return `${head}${added}.`;
}

/** "2026-03-02 10:00:05 UTC": the moment on the clock a court reads, beside the reader's own. */
export function formatUtc(iso: string): string | null {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return null;
  return `${at.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * The server's sentence with the export's moment written as every other moment on the card: it
 * says "26 Nov 2026 at 14:03 UTC" (the words `npm run export:verify` prints too), here it reads
 * "<the reader's date and time> (2026-11-26 14:03:22 UTC, audit event #812)". A sentence without
 * that moment is left as it is.
 */
export function withReadersTime(summary: string, iso: string): string {
  const at = new Date(iso);
  const utc = formatUtc(iso);
  if (!utc) return summary;
  const two = (n: number) => String(n).padStart(2, '0');
  const said = `${at.getUTCDate()} ${MONTHS[at.getUTCMonth()]} ${at.getUTCFullYear()} at ${two(at.getUTCHours())}:${two(at.getUTCMinutes())} UTC`;
  let rest = summary;
  let written = '';
  for (let index = rest.indexOf(said); index >= 0; index = rest.indexOf(said)) {
    const after = rest.slice(index + said.length);
    const event = /^ \(audit event #(\d+)\)/.exec(after);
    written += `${rest.slice(0, index)}${formatDateTime(at)} (${utc}${event ? `, audit event #${event[1]}` : ''})`;
    rest = after.slice(event ? event[0].length : 0);
  }
  return written + rest;
}

/** How a stored file passed between the client and the firm: "which Amelia Hart sent to the firm on …". */
export function storedFileVerb(direction: 'inbound' | 'outbound'): string {
  return direction === 'inbound' ? 'sent to the firm' : 'received from the firm';
}
