import type { Ref } from 'react';
import { Link } from 'wouter';
import { formatBytes } from '../../../../shared/media-limits';
import { showInvisibleCharacters } from '../../../../shared/visible-text';
import { formatDateTime } from '../../lib/format';
import { writeAuditFilters } from './audit-filters';
import { checkOf, type TVerifyResult } from './verify-result';

// Names in a copy come from outside (a file's name, a client's, a path in a ZIP someone else
// made): a direction override or a zero-width character must be seen, never take effect.
const visible = showInvisibleCharacters;
const counted = new Intl.NumberFormat('en-GB');
const GB = 1024 ** 3;

/** "1.25 GB" past a gigabyte (a bundle), else as files are sized elsewhere ("3.6 KB"). */
export function formatSize(bytes: number): string {
  return bytes >= GB ? `${(bytes / GB).toFixed(2)} GB` : formatBytes(bytes);
}

const HEADLINE: Record<TVerifyResult['verdict'], string> = {
  genuine: 'This copy is genuine',
  altered: 'This copy has been altered',
  unknown: 'Firm Chat has no record of this file',
};
const MARK: Record<TVerifyResult['verdict'], string> = { genuine: '✓', altered: '✗', unknown: '?' };
const KIND: Record<TVerifyResult['kind'], string> = {
  zip: 'ZIP',
  pdf: 'PDF',
  json: 'JSON',
  unknown: 'not a ZIP, PDF or JSON file',
};
const FORMAT: Record<'pdf' | 'json' | 'zip', string> = { zip: 'The court bundle (ZIP)', pdf: 'The PDF export', json: 'The JSON export' };
const PART: Record<'transcript.pdf' | 'messages.json' | 'manifest.json', string> = {
  'transcript.pdf': 'The transcript (transcript.pdf) of the court bundle',
  'messages.json': 'The JSON (messages.json) of the court bundle',
  'manifest.json': 'The manifest (manifest.json) of the court bundle',
};
const CHECK_WORDS = { matches: 'matches', differs: 'differs', missing: 'missing' } as const;

const Size = ({ bytes }: { bytes: number }) => <span title={`${counted.format(bytes)} bytes`}>{formatSize(bytes)}</span>;

/** What a ZIP's manifest.json says about itself, for when the trail does not know it: claims, not facts. */
function manifestClaims(manifest: NonNullable<TVerifyResult['manifest']>): string | null {
  const by = manifest.exportedBy as { name?: unknown } | null;
  const head = manifest.auditHead as { id?: unknown } | null;
  const at = typeof manifest.exportedAt === 'string' ? new Date(manifest.exportedAt) : null;
  const parts = [
    at && !Number.isNaN(at.getTime()) ? `exported ${formatDateTime(at)}` : null,
    typeof by?.name === 'string' ? `by ${visible(by.name)}` : null,
    typeof head?.id === 'number' ? `when the trail's head was event #${head.id}` : null,
  ].filter((p): p is string => p !== null);
  return parts.length ? parts.join(' ') : null;
}

/** A ZIP's files, each as its manifest lists it and as the ZIP holds it; and what the bundle left out or gained. */
function ManifestCheck({ manifest, known }: { manifest: NonNullable<TVerifyResult['manifest']>; known: boolean }) {
  const bad = manifest.files.filter((f) => checkOf(f) !== 'matches').length;
  const claims = known ? null : manifestClaims(manifest);
  return (
    <div className="verify-manifest">
      <h4>Files in the ZIP, checked against its manifest</h4>
      <p className="muted small">
        {manifest.allMatch
          ? `All ${counted.format(manifest.files.length)} files the manifest lists are there, unchanged, and nothing was added.`
          : `${bad ? `${counted.format(bad)} of ${counted.format(manifest.files.length)} files listed do not match` : 'Every file listed matches'}${manifest.extra.length ? `; ${counted.format(manifest.extra.length)} ${manifest.extra.length === 1 ? 'entry is' : 'entries are'} not in the manifest` : ''}.`}
        {claims && <> The manifest says it was {claims}; the audit trail does not confirm it.</>}
      </p>
      <table className="verify-files">
        <thead>
          <tr>
            <th scope="col">File</th>
            <th scope="col">Size</th>
            <th scope="col">Check</th>
          </tr>
        </thead>
        <tbody>
          {manifest.files.map((file) => {
            const check = checkOf(file);
            return (
              <tr key={file.path} data-check={check}>
                <td>
                  <span className="verify-path">{visible(file.path)}</span>
                  <code className="verify-file-sha" title={`SHA-256 in the manifest: ${file.sha256}`}>
                    {visible(file.sha256.slice(0, 12))}…
                  </code>
                </td>
                <td className="verify-size">
                  <Size bytes={file.bytes} />
                </td>
                <td className={`verify-check verify-check-${check}`}>
                  <span aria-hidden="true">{check === 'matches' ? '✓' : '✗'}</span> {CHECK_WORDS[check]}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {manifest.missing.length > 0 && (
        <div className="verify-missing">
          <p>Not in the bundle (the firm no longer had these files when it was made):</p>
          <ul>
            {manifest.missing.map((m) => (
              <li key={m.exhibit}>
                Exhibit {m.exhibit}, {visible(m.name)}: {visible(m.reason)}
              </li>
            ))}
          </ul>
        </div>
      )}
      {manifest.extra.length > 0 && (
        <div className="verify-extra">
          <p>In the ZIP but not in its manifest (added after the export):</p>
          <ul>
            {manifest.extra.map((path) => (
              <li key={path}>
                <span aria-hidden="true">✗</span> {visible(path)}
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}

/** The answer for one file: the verdict as a headline, the server's sentence, which export it is, and a ZIP's files. */
export function VerifyResultView({ result, headlineRef }: { result: TVerifyResult; headlineRef?: Ref<HTMLHeadingElement> }) {
  const found = result.export;
  const subjectHref = found ? `/${found.subject.type === 'client' ? 'clients' : 'cases'}/${found.subject.id}` : '';
  return (
    <article className={`verify-result verify-${result.verdict}`} aria-label={`Check of ${visible(result.fileName ?? 'the file')}`}>
      <h3 ref={headlineRef} tabIndex={-1} className="verify-headline">
        <span className="verify-mark" aria-hidden="true">
          {MARK[result.verdict]}
        </span>
        {HEADLINE[result.verdict]}
      </h3>
      <p className="verify-summary">{visible(result.summary)}</p>
      <dl className="verify-facts">
        <div>
          <dt>File</dt>
          <dd>
            {result.fileName ? visible(result.fileName) : 'No name given'} · {KIND[result.kind]} · <Size bytes={result.bytes} />
          </dd>
        </div>
        <div>
          <dt>SHA-256</dt>
          <dd>
            <code className="verify-sha">{visible(result.sha256)}</code>
          </dd>
        </div>
        {found ? (
          <>
            <div>
              <dt>Export</dt>
              <dd>
                {found.part ? PART[found.part] : FORMAT[found.format]} of {found.subject.type === 'case' ? 'case ' : ''}
                <Link href={subjectHref}>{visible(found.subject.name)}</Link>
              </dd>
            </div>
            <div>
              <dt>Exported</dt>
              <dd>
                by {visible(found.by.name)} on <time dateTime={found.at}>{formatDateTime(new Date(found.at))}</time>{' '}
                <span className="muted">({found.at.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC')})</span>
              </dd>
            </div>
            <div>
              <dt>Audit event</dt>
              <dd>
                <Link href={`/audit${writeAuditFilters({ from: found.auditEventId })}`}>Event #{found.auditEventId}</Link>{' '}
                <span className="muted">(the trail from there back)</span>
              </dd>
            </div>
          </>
        ) : (
          <div>
            <dt>Export</dt>
            <dd>No export in the audit trail that you may see has this fingerprint.</dd>
          </div>
        )}
      </dl>
      {result.manifest && <ManifestCheck manifest={result.manifest} known={found !== null} />}
    </article>
  );
}
