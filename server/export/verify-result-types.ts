import type { TSignatureCheck } from './export-signature';
import type { TStoredFile } from './find-stored-file';

// The shapes of "Verify a copy" (server/export/README.md "Evidence exports"): what the file itself says (TFileCheck,
// verify-export.ts), and the answer once the audit trail is asked (TVerifyResult, verify-route.ts).

export type TExportKind = 'zip' | 'pdf' | 'json' | 'unknown';
export type TVerdict = 'genuine' | 'altered' | 'unknown';
export type TBundlePart = 'transcript.pdf' | 'messages.json' | 'manifest.json';

/**
 * One file a manifest lists, checked: `actualSha256` is the hash of the bytes the ZIP holds (null
 * when it holds none, or they cannot be read); `matches` when they are the manifest's and, for an
 * exhibit, what messages.json recorded for it; `problem` says what is wrong in a few words. An
 * exhibit messages.json records that the ZIP neither holds nor its manifest lists as missing is a
 * row too (`found` false, its path as the bundle would name it).
 */
export type TManifestFile = {
  path: string;
  sha256: string;
  bytes: number;
  found: boolean;
  matches: boolean;
  actualSha256: string | null;
  problem: string | null;
};

/** An exhibit the manifest says the bundle does not hold (whole); `problem` when messages.json contradicts it. */
export type TMissingExhibit = { exhibit: number; name: string; reason: string; problem: string | null };

/** Who the manifest says the bundle is about, read only in the shape Firm Chat writes (small values). */
export type TManifestSubject = {
  type: 'client' | 'case';
  id: number;
  name: string;
  reference?: string | null;
  clientName?: string;
  numbers?: string[];
};

/**
 * A bundle's manifest, each listed file checked against the bytes in the ZIP. `subject`,
 * `exportedBy` and `auditHead` are what the manifest claims, in the shapes Firm Chat writes them;
 * null when it claims anything else (only the audit trail can say who exported what).
 */
export type TManifestCheck = {
  subject: TManifestSubject | null;
  exportedAt: string;
  exportedBy: { id: number | null; name: string; email?: string } | null;
  auditHead: { id: number | null; hash: string } | null;
  files: TManifestFile[];
  missing: TMissingExhibit[];
  /**
   * What the ZIP carries that the manifest does not list: entries by name, and marked so, folders
   * ("exhibits/x/ (a folder)"), comments ("(a comment on the ZIP)") and an entry whose own header
   * names it otherwise than the ZIP's directory.
   */
  extra: string[];
  /** Every listed file found and matching, every exhibit messages.json records accounted for, nothing extra. */
  allMatch: boolean;
};

/** The export a file is, from the audit trail (dates as ISO strings). */
export type TFoundExport = {
  auditEventId: number;
  at: string;
  by: { id: number | null; name: string };
  subject: { type: 'client' | 'case'; id: number; name: string };
  format: 'pdf' | 'json' | 'zip';
  /** Set when the file is one part of a bundle rather than the export itself. */
  part: TBundlePart | null;
};

/** The answer of `POST /api/export/verify`. */
export type TVerifyResult = {
  fileName: string | null;
  kind: TExportKind;
  sha256: string;
  bytes: number;
  export: TFoundExport | null;
  manifest: TManifestCheck | null;
  /** When no export matches: a file the firm holds with these exact bytes (one taken out of a bundle, say). */
  storedFile: TStoredFile | null;
  verdict: TVerdict;
  summary: string;
};

/** The SHA-256 of a ZIP's transcript.pdf and messages.json (null: not in it, or unreadable), as a bundle's audit event records them. */
export type TBundleParts = { transcriptSha256: string | null; jsonSha256: string | null };

/** What the file itself says, before the audit trail is asked. */
export type TFileCheck = {
  kind: TExportKind;
  sha256: string;
  bytes: number;
  manifest: TManifestCheck | null;
  /** The SHA-256 of a ZIP's manifest.json: what a bundle's audit event records, whatever the ZIP around it. */
  manifestSha256: string | null;
  /** A checked ZIP's transcript and JSON; both null for any other file. */
  parts: TBundleParts;
  /** JSON that is not an export of Firm Chat (`kind` is then `unknown`). */
  plainJson: boolean;
  /**
   * The file says it is an export of Firm Chat: a ZIP holding a bundle's manifest, transcript or
   * messages, JSON with an export's or a manifest's header, a PDF whose creator is Firm Chat. Only
   * the audit trail can say it is one: the same bytes among the files a client sent make it no export.
   */
  claimsExport: boolean;
  /** Why a ZIP could not be checked (DAMAGED_ZIP, a zip bomb, no manifest); null when it could. */
  problem: string | null;
  /** A checked ZIP's manifest.sig against the firm's key and the key its manifest names; null for any other file. */
  signature: TSignatureCheck | null;
};
