import { useState } from 'react';
import { useToast } from './toasts';

type TExportFormat = 'pdf' | 'json';
type TExportState =
  | { step: 'idle' }
  | { step: 'preparing'; format: TExportFormat }
  | { step: 'done'; fileName: string; sha256: string; verified: boolean | null }
  | { step: 'failed'; message: string };

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

/**
 * Evidence export of a client's or a case's chat (PDF or JSON). The server puts the file's SHA-256
 * in a header and in the audit trail; it is shown here, checked against the bytes received, so the
 * person exporting can keep it with the copy.
 */
export function ExportChat({ scope, id }: { scope: 'client' | 'case'; id: number }) {
  const [state, setState] = useState<TExportState>({ step: 'idle' });
  const [copied, setCopied] = useState(false);
  const toast = useToast();

  const download = async (format: TExportFormat) => {
    setState({ step: 'preparing', format });
    setCopied(false);
    try {
      const res = await fetch(`/api/export/${scope}/${id}.${format}`, { credentials: 'same-origin' });
      if (!res.ok) {
        const problem = (await res.json().catch(() => null)) as { message?: string } | null;
        const message = problem?.message ?? (res.status === 401 ? 'Your session has ended: sign in again.' : `The export failed (HTTP ${res.status}).`);
        return setState({ step: 'failed', message });
      }
      const sha256 = res.headers.get('X-Content-SHA256') ?? '';
      const blob = await res.blob();
      const received = await sha256Hex(blob);
      const fileName = fileNameOf(res.headers.get('Content-Disposition'), `chat-record.${format}`);
      if (received !== null && received !== sha256) {
        return setState({ step: 'failed', message: 'The file arrived damaged (its SHA-256 does not match the server’s). Nothing was saved: export again.' });
      }
      saveBlob(blob, fileName);
      setState({ step: 'done', fileName, sha256, verified: received === null ? null : true });
    } catch {
      setState({ step: 'failed', message: 'The server could not be reached. Check the connection and export again.' });
    }
  };

  const copy = async (text: string) => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
    } catch {
      toast('error', 'Copy is not allowed here: select the fingerprint and copy it by hand.');
    }
  };

  const preparing = state.step === 'preparing';
  return (
    <div className="export-chat">
      <p className="muted">
        Every chat message{scope === 'case' ? ' filed on this case' : ' with this client'}, with its sender, provider id, times, receipts and file fingerprints.
      </p>
      <div className="button-row">
        <button type="button" className="button" disabled={preparing} onClick={() => void download('pdf')}>
          {preparing && state.format === 'pdf' ? 'Preparing PDF…' : 'Export PDF'}
        </button>
        <button type="button" className="button" disabled={preparing} onClick={() => void download('json')}>
          {preparing && state.format === 'json' ? 'Preparing JSON…' : 'Export JSON'}
        </button>
      </div>
      <div role="status" aria-live="polite">
        {state.step === 'done' && (
          <div className="export-result">
            <p>
              Saved <strong>{state.fileName}</strong>. Its SHA-256 fingerprint is in the audit trail
              {state.verified ? ' and matches the file received' : ''}:
            </p>
            <div className="copy-row">
              <input readOnly value={state.sha256} aria-label="SHA-256 of the exported file" className="sha256" onFocus={(e) => e.currentTarget.select()} />
              <button type="button" className="button" onClick={() => void copy(state.sha256)}>
                {copied ? 'Copied' : 'Copy'}
              </button>
            </div>
            <p className="muted small">
              Keep it with the copy: <code>sha256sum</code> (or <code>Get-FileHash</code> on Windows) on the file must print the same.
            </p>
          </div>
        )}
      </div>
      {state.step === 'failed' && (
        <p className="form-error" role="alert">
          {state.message}
        </p>
      )}
    </div>
  );
}
