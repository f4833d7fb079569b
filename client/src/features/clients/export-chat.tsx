import { useEffect, useRef, useState, type Ref } from 'react';
import { Link } from 'wouter';
import { useToast } from '../../ui/toasts';
import { formatTime } from '../../lib/format';
import { readHttpErrorMessage } from '../../lib/http-error-message';
import { answerWantsStepUp, askForStepUp } from '../../lib/step-up-link';
import { trpc } from '../../lib/trpc';
import { formatSize } from '../audit';
import { downloadInFrame } from './download-in-frame';
import { newExportTicket, watchSavedExport, type TSavedExport } from './export-ticket';
import { describeFilesNotHeld } from './files-not-held';

type TExportFormat = 'pdf' | 'json';
type TSaved = { format: TExportFormat; fileName: string; sha256: string; verified: boolean };
type TExportState =
  | { step: 'idle' }
  | { step: 'preparing'; format: TExportFormat }
  | { step: 'done'; format: TExportFormat }
  | { step: 'failed'; message: string };
type TBundleState =
  { step: 'idle' } | { step: 'requested'; at: Date } | { step: 'saved'; saved: TSavedExport } | { step: 'failed'; message: string };

/** The file name the server chose (RFC 6266: `filename*` when it has characters beyond ASCII). */
function fileNameOf(disposition: string | null, fallback: string): string {
  const extended = /filename\*=UTF-8''([^;]+)/i.exec(disposition ?? '');
  if (extended) return decodeURIComponent(extended[1]!);
  return /filename="([^"]+)"/i.exec(disposition ?? '')?.[1] ?? fallback;
}

async function sha256Hex(blob: Blob): Promise<string | null> {
  if (!globalThis.crypto?.subtle) return null; // only over https (or on this machine)
  const digest = await crypto.subtle.digest('SHA-256', await blob.arrayBuffer());
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

// Said when the frame could not be read and the subject is still there to see: most often the
// server was already preparing as many exports as it will at once.
const BUNDLE_REFUSED =
  'The court bundle could not be prepared: the server may be busy with other exports. Try again in a few seconds; if it keeps failing, tell whoever runs Firm Chat.';

const counted = new Intl.NumberFormat('en-GB');

/** A fingerprint to keep: sized to its 64 characters at any width (wrapped, never cut), selectable, with Copy. */
function FingerprintRow({ sha256, label, fieldRef }: { sha256: string; label: string; fieldRef?: Ref<HTMLTextAreaElement> | undefined }) {
  const [copied, setCopied] = useState(false);
  const toast = useToast();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(sha256);
      setCopied(true);
    } catch {
      toast('error', 'Copy is not allowed here: select the fingerprint and copy it by hand.');
    }
  };
  return (
    <div className="copy-row">
      <textarea
        ref={fieldRef}
        readOnly
        rows={4}
        value={sha256}
        aria-label={label}
        className="sha256"
        onFocus={(e) => e.currentTarget.select()}
      />
      <button type="button" className="button" onClick={() => void copy()}>
        {copied ? 'Copied' : 'Copy'}
      </button>
    </div>
  );
}

/** Where a copy of the bundle is checked: a link for directors, who may open the Audit page. */
function CheckLater({ isDirector }: { isDirector: boolean }) {
  return isDirector ? (
    <>
      Check any copy of it later with <Link href="/audit#verify-copy">Verify a copy</Link> on the Audit page.
    </>
  ) : (
    <>A director can check any copy of it later with Verify a copy on the Audit page.</>
  );
}

/** What the browser saved, as the server's cookie told it (the page never sees the bytes). */
function SavedBundle({ saved, isDirector }: { saved: TSavedExport; isDirector: boolean }) {
  return (
    <div className="export-result export-bundle-saved">
      {/* The cookie comes with the first bytes: a large bundle may still be arriving, as the browser's downloads list shows. */}
      <p>
        Saved by your browser: <strong>{formatSize(saved.bytes)}</strong> ({counted.format(saved.bytes)} bytes), SHA-256:
      </p>
      <FingerprintRow sha256={saved.sha256} label="SHA-256 of the saved court bundle" />
      <p className="muted small">
        The same fingerprint is in the firm&rsquo;s audit trail. A large bundle may still be arriving: the browser&rsquo;s downloads list
        shows when it is complete. Keep the fingerprint with the file. Anyone can check a copy later: <code>sha256sum</code> (or{' '}
        <code>Get-FileHash</code> on Windows, which prints it in capitals) must give the same 64 characters.{' '}
        <CheckLater isDirector={isDirector} />
      </p>
    </div>
  );
}

/**
 * The court bundle (server/export/README.md "Evidence exports"): a ZIP of the transcript, the JSON, every file as a
 * numbered exhibit and a manifest of their fingerprints. It can be gigabytes, so it is not fetched
 * into the page and hashed there as the PDF and JSON are: the browser's download manager saves it
 * (`downloadInFrame`), and the server's cookie under the request's ticket says what was sent
 * (`export-ticket.ts`).
 */
function CourtBundle({ scope, id }: { scope: 'client' | 'case'; id: number }) {
  const [state, setState] = useState<TBundleState>({ step: 'idle' });
  const isDirector = trpc.auth.me.useQuery(undefined, { staleTime: Infinity }).data?.role === 'director';
  // The same query as the Documents list beside it (one request): what the bundle will lack.
  const documents = trpc.timeline.documents.useQuery(scope === 'client' ? { clientId: id } : { caseId: id });
  const notHeld = documents.data ? describeFilesNotHeld(documents.data.items) : null;
  const utils = trpc.useUtils();
  const toast = useToast();
  const mounted = useRef(true);
  const current = useRef<string | null>(null); // the ticket of the request the card shows
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  /**
   * Why the server refused: the sentence it answered in the frame (the export routes may be framed by
   * this site alone). When the frame could not be read, the subject is asked for again (a wall put
   * up meanwhile, or a session ended, answers with the server's own sentence), else it was busy.
   */
  const explainRefusal = async (message: string | null): Promise<string> => {
    if (message) return `The court bundle could not be prepared: ${message}`;
    try {
      // Past the page's cache: its answer is for this sentence only, and the page's own (live) reading
      // of a wall closes it in its own time, not before the sentence is shown.
      if (scope === 'client') await utils.client.clients.get.query({ clientId: id });
      else await utils.client.cases.get.query({ caseId: id });
    } catch (error) {
      if (error instanceof Error && error.message) return `The court bundle could not be prepared: ${error.message}`;
    }
    return BUNDLE_REFUSED;
  };

  const request = (afterStepUp = false) => {
    const ticket = newExportTicket();
    current.current = ticket;
    // The answer for an earlier request the person gave up waiting for is not shown over this one's.
    const show = (next: TBundleState) => {
      if (current.current === ticket) setState(next);
    };
    setState({ step: 'requested', at: new Date() });
    const frame = downloadInFrame(`/api/export/${scope}/${id}.zip?ticket=${ticket}`, (message, stepUp) => {
      // A restricted matter's export waits for "Confirm it's you", then is asked for once more.
      if (stepUp && !afterStepUp && mounted.current && current.current === ticket)
        return void askForStepUp().then(
          () => current.current === ticket && request(true),
          (cancelled: Error) => show({ step: 'failed', message: cancelled.message }),
        );
      void explainRefusal(message).then((sentence) => {
        // Gone to another page meanwhile: the reason still reaches the person.
        if (mounted.current) show({ step: 'failed', message: sentence });
        else toast('error', sentence);
      });
    });
    // Looked for while someone may read the answer or the server may still send it: the cookie is
    // set only when the server, the bundle ready, starts sending it.
    watchSavedExport(
      ticket,
      () => mounted.current || frame.isAlive(),
      (saved) => {
        frame.remove(); // the download manager has the file now
        if (mounted.current) show({ step: 'saved', saved });
        else toast('success', `Your browser saved the court bundle: ${formatSize(saved.bytes)}, SHA-256 ${saved.sha256}.`);
      },
    );
  };

  const requested = state.step === 'requested';
  return (
    <div className="export-bundle">
      <div className="export-bundle-offer">
        {/* aria-disabled, not disabled: the button keeps the focus while the note below is read out. */}
        <button type="button" className="button" aria-disabled={requested} onClick={() => !requested && request()}>
          {requested ? 'Preparing the court bundle…' : 'Court bundle (ZIP)'}
        </button>
        <p className="muted small">
          One ZIP for court: the transcript PDF, the JSON, every file as a numbered exhibit, and a manifest of their SHA-256 fingerprints.
        </p>
        {notHeld && (
          <p className="export-bundle-warning" data-testid="bundle-files-not-held">
            <span aria-hidden="true">⚠ </span>
            {notHeld}
          </p>
        )}
      </div>
      <div role="status" aria-live="polite" className="export-bundle-status">
        {requested && (
          <div className="export-bundle-note">
            <p>
              Preparing the court bundle (asked for at {formatTime(state.at)}). Your browser saves it when it is ready and shows it in its
              downloads; one with many files can take some minutes. Its fingerprints go into the firm&rsquo;s audit trail.{' '}
              <CheckLater isDirector={isDirector} />
            </p>
            <button type="button" className="button small ghost" onClick={() => setState({ step: 'idle' })}>
              Ask for another copy
            </button>
          </div>
        )}
        {state.step === 'saved' && <SavedBundle saved={state.saved} isDirector={isDirector} />}
      </div>
      {state.step === 'failed' && (
        <p className="form-error" role="alert">
          {state.message}
        </p>
      )}
    </div>
  );
}

/**
 * Evidence export of a client's or a case's chat (PDF or JSON). The server puts the file's SHA-256
 * in a header and in the audit trail; it is shown here, checked against the bytes received, so the
 * person exporting can keep it with the copy.
 */
export function ExportChat({ scope, id }: { scope: 'client' | 'case'; id: number }) {
  const [state, setState] = useState<TExportState>({ step: 'idle' });
  // Each format's latest file stays listed: exporting the JSON does not hide the PDF's fingerprint.
  const [saved, setSaved] = useState<Partial<Record<TExportFormat, TSaved>>>({});
  const latest = useRef<HTMLTextAreaElement>(null);
  // The buttons are busy while the file is prepared: focus goes on to the new fingerprint.
  useEffect(() => {
    if (state.step === 'done') latest.current?.focus();
  }, [state]);

  const download = async (format: TExportFormat) => {
    setState({ step: 'preparing', format });
    try {
      let res = await fetch(`/api/export/${scope}/${id}.${format}`, { credentials: 'same-origin' });
      let refusal: unknown = res.ok ? null : await res.json().catch(() => null);
      // A restricted matter's export waits for "Confirm it's you", then is asked for once more.
      if (res.status === 403 && answerWantsStepUp(refusal)) {
        try {
          await askForStepUp();
        } catch (cancelled) {
          return setState({ step: 'failed', message: (cancelled as Error).message });
        }
        res = await fetch(`/api/export/${scope}/${id}.${format}`, { credentials: 'same-origin' });
        refusal = res.ok ? null : await res.json().catch(() => null);
      }
      if (!res.ok) {
        const message =
          readHttpErrorMessage(refusal) ??
          (res.status === 401 ? 'Your session has ended: sign in again.' : `The export failed (HTTP ${res.status}).`);
        return setState({ step: 'failed', message });
      }
      const sha256 = res.headers.get('X-Content-SHA256') ?? '';
      const blob = await res.blob();
      const received = await sha256Hex(blob);
      const fileName = fileNameOf(res.headers.get('Content-Disposition'), `chat-record.${format}`);
      if (received !== null && received !== sha256) {
        return setState({
          step: 'failed',
          message: 'The file arrived damaged (its SHA-256 does not match the server’s). Nothing was saved: export again.',
        });
      }
      saveBlob(blob, fileName);
      setSaved((previous) => ({ ...previous, [format]: { format, fileName, sha256, verified: received !== null } }));
      setState({ step: 'done', format });
    } catch {
      setState({ step: 'failed', message: 'The server could not be reached. Check the connection and export again.' });
    }
  };

  const preparing = state.step === 'preparing';
  return (
    <div className="export-chat">
      <p className="muted">
        Every chat message{scope === 'case' ? ' filed on this case' : ' with this client'}, with its sender, provider id, times, receipts
        and file fingerprints.
      </p>
      <div className="button-row">
        <button type="button" className="button" disabled={preparing} onClick={() => void download('pdf')}>
          {preparing && state.format === 'pdf' ? 'Preparing PDF…' : 'Export PDF'}
        </button>
        <button type="button" className="button" disabled={preparing} onClick={() => void download('json')}>
          {preparing && state.format === 'json' ? 'Preparing JSON…' : 'Export JSON'}
        </button>
      </div>
      <div role="status" aria-live="polite" className="export-results">
        {(['pdf', 'json'] as const).map((format) => {
          const file = saved[format];
          if (!file) return null;
          return (
            <div className="export-result" key={format}>
              <p>
                Saved <strong>{file.fileName}</strong>. Its SHA-256 fingerprint{file.verified ? ', checked against the file received,' : ''}{' '}
                is recorded in the firm&rsquo;s audit trail:
              </p>
              <FingerprintRow
                key={file.sha256}
                sha256={file.sha256}
                label={`SHA-256 of the exported ${format.toUpperCase()}`}
                fieldRef={state.step === 'done' && state.format === format ? latest : undefined}
              />
            </div>
          );
        })}
        {Object.keys(saved).length > 0 && (
          <p className="muted small">
            The same fingerprint is in the firm&rsquo;s audit trail. A large bundle may still be arriving: the browser&rsquo;s downloads
            list shows when it is complete. Keep the fingerprint with the file. Anyone can check a copy later: <code>sha256sum</code> (or{' '}
            <code>Get-FileHash</code> on Windows, which prints it in capitals) must give the same 64 characters.
          </p>
        )}
      </div>
      {state.step === 'failed' && (
        <p className="form-error" role="alert">
          {state.message}
        </p>
      )}
      <CourtBundle scope={scope} id={id} />
    </div>
  );
}
