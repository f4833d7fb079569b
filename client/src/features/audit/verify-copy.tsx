import { useEffect, useRef, useState, type DragEvent } from 'react';
import { showInvisibleCharacters } from '../../../../shared/visible-text';
import { trpc } from '../../lib/trpc';
import { CancelledUpload, MAX_VERIFY_BYTES, uploadForVerification } from './upload-for-verification';
import { formatSize, type TVerifyResult } from './verify-result';
import { VerifyResultView } from './verify-result-view';

const visible = showInvisibleCharacters;

type TState =
  | { step: 'idle'; note?: string }
  | { step: 'sending'; name: string; sent: number; total: number }
  | { step: 'done'; result: TVerifyResult }
  | { step: 'failed'; name: string; message: string };

/** Where "Verify a copy" links land (the export card, server/export/README.md "Evidence exports"). */
export const VERIFY_COPY_ID = 'verify-copy';

/**
 * Verify a copy (directors, on the Audit page): a file someone holds — a bundle, a PDF, a JSON — is
 * sent as it is to the server, which finds its export in the trail by its SHA-256 and, for a ZIP,
 * checks every file against the manifest. The check is itself audited, so the trail is read again.
 */
export function VerifyCopy() {
  const [state, setState] = useState<TState>({ step: 'idle' });
  const [dragging, setDragging] = useState(false);
  const cancel = useRef<(() => void) | null>(null);
  const headline = useRef<HTMLHeadingElement>(null);
  const section = useRef<HTMLElement>(null);
  const utils = trpc.useUtils();

  // Opened from "Verify a copy" on an export card: bring the section into view.
  useEffect(() => {
    if (window.location.hash === `#${VERIFY_COPY_ID}`) section.current?.scrollIntoView({ block: 'start' });
  }, []);
  // A file dropped just beside the zone would otherwise be opened by the browser, leaving the page.
  useEffect(() => {
    const keep = (e: globalThis.DragEvent) => {
      if (e.dataTransfer?.types.includes('Files')) e.preventDefault();
    };
    window.addEventListener('dragover', keep);
    window.addEventListener('drop', keep);
    return () => {
      window.removeEventListener('dragover', keep);
      window.removeEventListener('drop', keep);
    };
  }, []);
  // Leaving the page stops an upload nobody will see the answer to.
  useEffect(() => () => cancel.current?.(), []);
  // The answer may be long (a bundle's files): the reader is taken to its headline.
  useEffect(() => {
    if (state.step === 'done') headline.current?.focus();
  }, [state]);

  const busy = state.step === 'sending';

  const check = async (file: File) => {
    if (busy) return;
    if (file.size > MAX_VERIFY_BYTES) {
      setState({
        step: 'failed',
        name: file.name,
        message: `it is ${formatSize(file.size)}, larger than any export Firm Chat makes (5 GiB at most), so it cannot be one.`,
      });
      return;
    }
    setState({ step: 'sending', name: file.name, sent: 0, total: file.size });
    const upload = uploadForVerification(file, (sent, total) => setState({ step: 'sending', name: file.name, sent, total }));
    cancel.current = upload.cancel;
    try {
      const result = await upload.result;
      setState({ step: 'done', result });
      void utils.audit.list.invalidate();
      void utils.audit.head.invalidate();
    } catch (error) {
      if (error instanceof CancelledUpload) setState({ step: 'idle', note: `Cancelled: ${visible(file.name)} was not checked.` });
      else setState({ step: 'failed', name: file.name, message: (error as Error).message });
    } finally {
      cancel.current = null;
    }
  };

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    const file = e.dataTransfer.files[0];
    if (file) void check(file);
  };
  const onDragLeave = (e: DragEvent) => {
    if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setDragging(false);
  };

  return (
    <section ref={section} id={VERIFY_COPY_ID} className="card verify-copy" aria-labelledby="verify-copy-title">
      <h2 id="verify-copy-title">Verify a copy</h2>
      <p className="muted">
        Is a file you were handed the export Firm Chat made? It is genuine only if it carries the firm&rsquo;s signature; the trail then
        says who exported it and when, and in a court bundle every file is checked against the signed manifest. The file is read by the
        server and not kept.
      </p>
      <div
        className={`verify-drop${dragging ? ' dragging' : ''}${busy ? ' busy' : ''}`}
        onDragOver={(e) => {
          e.preventDefault();
          e.dataTransfer.dropEffect = busy ? 'none' : 'copy';
          setDragging(!busy);
        }}
        onDragLeave={onDragLeave}
        onDrop={onDrop}
      >
        {/* A phone has nothing to drop a file from: there the zone only offers the choice (the styles swap the two lines). */}
        <p className="verify-drop-text verify-drop-wide">Drop an export (ZIP, PDF or JSON) to check it</p>
        <p className="verify-drop-text verify-drop-narrow">Choose an export (ZIP, PDF or JSON) to check it</p>
        <div className="verify-choose">
          <span className="verify-drop-wide" aria-hidden="true">
            or
          </span>
          <input
            type="file"
            aria-label="Choose an export to check"
            disabled={busy}
            onChange={(e) => {
              const file = e.currentTarget.files?.[0];
              e.currentTarget.value = ''; // the same file may be chosen again
              if (file) void check(file);
            }}
          />
        </div>
      </div>
      <div className="verify-status" aria-live="polite">
        {state.step === 'sending' && (
          <div className="verify-progress" role="status">
            {state.sent < state.total ? (
              <p>
                Sending {visible(state.name)}: {formatSize(state.sent)} of {formatSize(state.total)}
              </p>
            ) : (
              <p>Checking {visible(state.name)}: the server is reading it (a large bundle takes a while)…</p>
            )}
            <div className="verify-progress-row">
              {/* No value while the server reads: it says nothing about how far it has got. */}
              {state.sent < state.total ? (
                <progress max={state.total} value={state.sent} aria-label={`Sending ${visible(state.name)}`} />
              ) : (
                <progress aria-label={`Checking ${visible(state.name)}`} />
              )}
              <button type="button" className="button small ghost" onClick={() => cancel.current?.()}>
                Cancel
              </button>
            </div>
          </div>
        )}
        {state.step === 'idle' && state.note && (
          <p className="muted" role="status">
            {state.note}
          </p>
        )}
      </div>
      {state.step === 'failed' && (
        <p className="form-error" role="alert">
          {visible(state.name)} could not be checked: {state.message}
        </p>
      )}
      {state.step === 'done' && <VerifyResultView result={state.result} headlineRef={headline} />}
    </section>
  );
}
