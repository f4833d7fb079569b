import { QueryTypes, type Sequelize } from 'sequelize';
import type { TBundlePart, TFileCheck, TFoundExport } from './verify-result-types';

/**
 * The export a file is; `byManifest` when a ZIP was known by its manifest (its files packed into a
 * new ZIP since) rather than its own hash; `byPart` when neither is in the trail but its transcript
 * or messages.json is a recorded bundle's: the ZIP claims to be that bundle, with a manifest that
 * is not the one recorded (altered). `onFile` false once its client or case was erased.
 */
export type TExportMatch = {
  found: TFoundExport;
  byManifest: boolean;
  byPart: TBundlePart | null;
  onFile: boolean;
  signed: TEventSignature;
};

/**
 * The signature the event recorded over the matched file's digest, and the key it names
 * (export-signature.ts); nulls when it recorded none (an export made before exports were signed, or a row someone wrote).
 */
export type TEventSignature = { signature: string | null; fingerprint: string | null };

type TEventRow = {
  id: string;
  at: Date;
  userId: number | null;
  userName: string | null;
  subject: string;
  format: string | null;
  part: TBundlePart | null;
  subjectName: string | null;
  signature: string | null;
  signingKey: string | null;
  partSignatures: Record<string, unknown> | null;
};

/** Which hashes of an `export.create` event's detail a file's hash is compared with. */
const MATCHES = {
  /** A PDF or JSON export, or one part of a bundle (server/export/README.md "Evidence exports"). */
  file: `$1 IN (e.detail->>'sha256', e.detail->>'transcriptSha256', e.detail->>'jsonSha256', e.detail->>'manifestSha256')`,
  bundle: `e.detail->>'sha256' = $1 AND e.detail->>'format' = 'zip'`,
  manifest: `e.detail->>'manifestSha256' = $1`,
  /** A bundle's transcript or JSON, as a ZIP that claims to be that bundle holds it. */
  part: `e.detail->>'format' = 'zip' AND $1 IN (e.detail->>'transcriptSha256', e.detail->>'jsonSha256')`,
} as const;

/**
 * The first `export.create` event whose detail records `sha256` as `as` says. Export events are
 * found through the action's index (audit_events_action_idx), then by their detail: a trail holds
 * far fewer exports than events. The subject's name is read as it is now; null once erased.
 */
async function findEvent(
  database: Sequelize,
  sha256: string,
  as: keyof typeof MATCHES,
): Promise<Omit<TExportMatch, 'byManifest' | 'byPart'> | null> {
  const [row] = await database.query<TEventRow>(
    `SELECT e.id::text AS id, e.at, e.user_id AS "userId", u.name AS "userName", e.subject, e.detail->>'format' AS format,
            CASE WHEN e.detail->>'sha256' = $1 THEN NULL
                 WHEN e.detail->>'transcriptSha256' = $1 THEN 'transcript.pdf'
                 WHEN e.detail->>'jsonSha256' = $1 THEN 'messages.json'
                 ELSE 'manifest.json' END AS part,
            CASE WHEN e.subject ~ '^client:[0-9]{1,10}$' THEN (SELECT c.name FROM clients c WHERE c.id::text = split_part(e.subject, ':', 2))
                 WHEN e.subject ~ '^case:[0-9]{1,10}$'
                   THEN (SELECT k.reference || ' ' || k.title FROM cases k WHERE k.id::text = split_part(e.subject, ':', 2))
            END AS "subjectName",
            e.detail->>'signature' AS signature, e.detail->>'signingKey' AS "signingKey",
            CASE WHEN jsonb_typeof(e.detail->'partSignatures') = 'object' THEN e.detail->'partSignatures' END AS "partSignatures"
     FROM audit_events e LEFT JOIN users u ON u.id = e.user_id
     WHERE e.action = 'export.create' AND ${MATCHES[as]}
     ORDER BY e.id
     LIMIT 1`,
    { bind: [sha256.toLowerCase()], type: QueryTypes.SELECT },
  );
  const subject = /^(client|case):(\d+)$/.exec(row?.subject ?? '');
  if (!row || !subject) return null;
  const type = subject[1] as 'client' | 'case';
  const found: TFoundExport = {
    auditEventId: Number(row.id),
    at: new Date(row.at).toISOString(),
    by: { id: row.userId, name: row.userName ?? (row.userId === null ? 'the system' : `user #${row.userId}`) },
    subject: { type, id: Number(subject[2]), name: row.subjectName ?? `${type} #${subject[2]}, no longer on file` },
    format: row.format === 'zip' || row.format === 'json' ? row.format : 'pdf',
    part: row.part,
  };
  const signature = row.part ? row.partSignatures?.[row.part] : row.signature;
  const signed = { signature: typeof signature === 'string' ? signature : null, fingerprint: row.signingKey };
  return { found, onFile: row.subjectName !== null, signed };
}

/**
 * The export a checked file is, from the audit trail: a ZIP by its own hash, or else by its
 * manifest's (the same bundle repacked), or else by its transcript's or messages.json's (a bundle
 * whose manifest was edited: the route and the CLI call it altered); any other file by its hash, as
 * a plain export or as a part of a bundle. No walls here: the route asks them (the CLI is the
 * operator's, on the server).
 */
export async function findExportEvent(database: Sequelize, check: TFileCheck): Promise<TExportMatch | null> {
  if (check.kind !== 'zip') {
    const file = await findEvent(database, check.sha256, 'file');
    return file && { ...file, byManifest: false, byPart: null };
  }
  const whole = await findEvent(database, check.sha256, 'bundle');
  if (whole) return { ...whole, byManifest: false, byPart: null };
  if (!check.manifestSha256) return null;
  const repacked = await findEvent(database, check.manifestSha256, 'manifest');
  if (repacked) return { ...repacked, found: { ...repacked.found, part: null }, byManifest: true, byPart: null };
  for (const [part, sha256] of [
    ['transcript.pdf', check.parts.transcriptSha256],
    ['messages.json', check.parts.jsonSha256],
  ] as const) {
    const claimed = sha256 ? await findEvent(database, sha256, 'part') : null;
    if (claimed) return { ...claimed, found: { ...claimed.found, part: null }, byManifest: false, byPart: part };
  }
  return null;
}

/** The export's client or case, as the walls name it. */
export const subjectOfExport = (found: TFoundExport) =>
  found.subject.type === 'client' ? { clientId: found.subject.id } : { caseId: found.subject.id };
