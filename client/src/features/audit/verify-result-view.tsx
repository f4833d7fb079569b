import type { Ref } from 'react';
import { Link } from 'wouter';
import { showInvisibleCharacters } from '../../../../shared/visible-text';
import { formatDateTime } from '../../lib/format';
import { writeAuditFilters } from './audit-filters';
import {
  checkOf,
  describeManifestCheck,
  formatSize,
  formatUtc,
  problemSentence,
  storedFileVerb,
  withReadersTime,
  type TStoredFile,
  type TVerifiedFile,
  type TVerifyResult,
} from './verify-result';

// Names in a copy come from outside (a file's name, a client's, a path in a ZIP someone else
// made): a direction override or a zero-width character must be seen, never take effect.
const visible = showInvisibleCharacters;
const counted = new Intl.NumberFormat('en-GB');

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
// Against a manifest the trail does not know, agreeing with it proves nothing: said plainly, not ticked.
const UNCONFIRMED_MATCH = { mark: '=', words: 'as listed' };

const Size = ({ bytes }: { bytes: number }) => <span title={`${counted.format(bytes)} bytes`}>{formatSize(bytes)}</span>;

/** A moment as the whole card writes it: the reader's date and time, and UTC beside it. */
function Moment({ iso }: { iso: string }) {
  const utc = formatUtc(iso);
  if (!utc) return <>{visible(iso)}</>;
  return (
    <>
      <time dateTime={iso}>{formatDateTime(new Date(iso))}</time> <span className="muted">({utc})</span>
    </>
  );
}

/** What a ZIP's manifest.json says about itself, for when the trail does not know it: claims, not facts. */
function ManifestClaims({ manifest }: { manifest: NonNullable<TVerifyResult['manifest']> }) {
  const by = manifest.exportedBy as { name?: unknown } | null;
  const head = manifest.auditHead as { id?: unknown } | null;
  const at = typeof manifest.exportedAt === 'string' && formatUtc(manifest.exportedAt) ? manifest.exportedAt : null;
  const name = typeof by?.name === 'string' ? visible(by.name) : null;
  const headId = typeof head?.id === 'number' ? head.id : null;
  if (!at && !name && headId === null) return null;
  return (
    <>
      {' '}
      The manifest says it was exported
      {at && (
        <>
          {' '}
          on <Moment iso={at} />
        </>
      )}
      {name && <> by {name}</>}
      {headId !== null && <> when the trail&rsquo;s head was event #{headId}</>}; the audit trail does not confirm it.
    </>
  );
}

/** A full SHA-256, wrapped rather than cut, to be read or selected. */
const FullHash = ({ hash }: { hash: string }) => <code className="verify-full-sha">{visible(hash)}</code>;

/** One file the manifest lists: its path, what is wrong with it in words, and both fingerprints in full. */
function ManifestRow({ file, known }: { file: TVerifiedFile; known: boolean }) {
  const check = checkOf(file);
  const unconfirmed = check === 'matches' && !known;
  return (
    <tr data-check={check}>
      <td>
        <span className="verify-path">{visible(file.path)}</span>
        {check === 'matches' ? (
          <>
            {/* A difference the bundle declared itself (its list of missing files): said, not marked. */}
            {file.problem && <p className="verify-note">{visible(problemSentence(file.problem))}</p>}
            <details className="verify-row-hashes">
              <summary>
                SHA-256 <code>{visible(file.sha256.slice(0, 12))}…</code>
              </summary>
              <FullHash hash={file.sha256} />
            </details>
          </>
        ) : (
          <>
            <p className="verify-problem">
              {file.problem
                ? visible(problemSentence(file.problem))
                : check === 'missing'
                  ? 'Not in the ZIP.'
                  : 'Its bytes are not those the manifest lists.'}
            </p>
            <dl className="verify-row-hashes">
              <div>
                <dt>Listed in the manifest</dt>
                <dd>
                  <FullHash hash={file.sha256} />
                </dd>
              </div>
              <div>
                <dt>In the ZIP</dt>
                <dd>{file.actualSha256 ? <FullHash hash={file.actualSha256} /> : 'nothing'}</dd>
              </div>
            </dl>
          </>
        )}
      </td>
      <td className="verify-size">
        <Size bytes={file.bytes} />
      </td>
      <td className={`verify-check verify-check-${unconfirmed ? 'unconfirmed' : check}`}>
        <span aria-hidden="true">{unconfirmed ? UNCONFIRMED_MATCH.mark : check === 'matches' ? '✓' : '✗'}</span>{' '}
        {unconfirmed ? UNCONFIRMED_MATCH.words : CHECK_WORDS[check]}
      </td>
    </tr>
  );
}

/** A ZIP's files, each as its manifest lists it and as the ZIP holds it; and what the bundle left out or gained. */
function ManifestCheck({ manifest, known }: { manifest: NonNullable<TVerifyResult['manifest']>; known: boolean }) {
  return (
    <div className={`verify-manifest${known ? '' : ' verify-manifest-unconfirmed'}`}>
      {/* Unknown to the trail, the manifest is only what the ZIP says of itself: said in the heading, not in a colour. */}
      <h4>
        {known ? 'Files in the ZIP, checked against its manifest' : 'What the ZIP’s own manifest says (not confirmed by the audit trail)'}
      </h4>
      <p className="muted small">
        {describeManifestCheck(manifest, known)}
        {!known && <ManifestClaims manifest={manifest} />}
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
          {manifest.files.map((file) => (
            <ManifestRow key={file.path} file={file} known={known} />
          ))}
        </tbody>
      </table>
      {manifest.missing.length > 0 && (
        <div className="verify-missing">
          <p>Not in the bundle (the firm did not hold these files when it was made):</p>
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

/** "This file is identical to letter.pdf, which Amelia Hart sent to the firm on …", the client linked. */
function StoredFileSentence({ stored }: { stored: TStoredFile }) {
  const name = stored.fileName ? visible(stored.fileName) : `a file with no name (${visible(stored.mimeType)})`;
  const client = <Link href={`/clients/${stored.subject.id}`}>{visible(stored.subject.name)}</Link>;
  return (
    <p className="verify-summary verify-stored">
      This file is identical to <strong>{name}</strong>,{' '}
      {stored.direction === null ? (
        <>
          which is on the file of {client}, dated <Moment iso={stored.at} />
        </>
      ) : (
        <>
          which {client} {storedFileVerb(stored.direction)} on <Moment iso={stored.at} />
        </>
      )}
      {stored.others
        ? ` (${counted.format(stored.others)} other ${stored.others === 1 ? 'file' : 'files'} the firm holds ${stored.others === 1 ? 'has' : 'have'} the same bytes)`
        : ''}
      .
    </p>
  );
}

/** The answer for one file: the verdict as a headline, the server's sentence, which export it is, and a ZIP's files. */
export function VerifyResultView({ result, headlineRef }: { result: TVerifyResult; headlineRef?: Ref<HTMLHeadingElement> }) {
  const found = result.export;
  const stored = result.storedFile;
  // A file the firm holds that does not claim to be an export: the server's sentence begins so (a
  // claimed one's says it is not an export the firm made).
  const heldOnly = stored !== null && !found && result.summary.startsWith('This file is identical to');
  const subjectHref = found ? `/${found.subject.type === 'client' ? 'clients' : 'cases'}/${found.subject.id}` : '';
  return (
    <article className={`verify-result verify-${result.verdict}`} aria-label={`Check of ${visible(result.fileName ?? 'the file')}`}>
      <h3 ref={headlineRef} tabIndex={-1} className="verify-headline">
        <span className="verify-mark" aria-hidden="true">
          {MARK[result.verdict]}
        </span>
        {heldOnly ? 'The firm holds this file; it is not an export' : HEADLINE[result.verdict]}
      </h3>
      {/* The server's sentence for a stored file says the same as this one, without the link. */}
      {heldOnly ? (
        <>
          <StoredFileSentence stored={stored} />
          <p className="verify-summary">A file the firm holds is not an export: no signature of the firm vouches for it.</p>
        </>
      ) : (
        <>
          <p className="verify-summary">{visible(found ? withReadersTime(result.summary, found.at) : result.summary)}</p>
          {stored && <StoredFileSentence stored={stored} />}
        </>
      )}
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
        {found && (
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
                by {visible(found.by.name)} on <Moment iso={found.at} />
              </dd>
            </div>
            <div>
              <dt>Audit event</dt>
              <dd>
                <Link href={`/audit${writeAuditFilters({ from: found.auditEventId })}`}>Event #{found.auditEventId}</Link>{' '}
                <span className="muted">— opens the audit trail at this export, with the events before it below</span>
              </dd>
            </div>
          </>
        )}
        {stored && (
          <div>
            <dt>Held by the firm</dt>
            <dd>
              {stored.fileName ? visible(stored.fileName) : 'No name'} · {visible(stored.mimeType)} · <Size bytes={stored.bytes} />
              {stored.caseId !== null && (
                <>
                  {' '}
                  · <Link href={`/cases/${stored.caseId}`}>its case</Link>
                </>
              )}
            </dd>
          </div>
        )}
        {!found && !stored && (
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
