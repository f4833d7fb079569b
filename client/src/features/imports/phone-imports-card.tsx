import { useRef, useState } from 'react';
import type { TImportPreview } from '../../../../shared/import-preview';
import { formatBytes, UPLOAD_LIMITS } from '../../../../shared/media-limits';
import { formatDate, formatDateTime } from '../../lib/format';
import { trpc } from '../../lib/trpc';
import { QueryStatus } from '../../ui/query-status';
import { useToast } from '../../ui/toasts';
import { uploadFile } from '../composer';
import { CancelledImport, previewUploaded, uploadChatExport } from './upload-chat-export';
import { ImportPreviewForm } from './import-preview-form';

type TCase = { id: number; reference: string; title: string };

type TStep =
  | { step: 'idle' }
  | { step: 'sending'; name: string; sent: number; total: number; cancellable: boolean }
  | { step: 'preview'; preview: TImportPreview }
  | { step: 'failed'; message: string };

const plural = (n: number, one: string) => `${n.toLocaleString()} ${one}${n === 1 ? '' : 's'}`;

/**
 * History from the phone (server/imports/README.md "History from the phone"): a chat a lawyer had with
 * the client on their own phone, exported there and brought onto the client's file. The export is
 * read first (who wrote, how much, the files, the dates); nothing is kept on the file until Import.
 */
export function PhoneImportsCard({ clientId, clientName, cases }: { clientId: number; clientName: string; cases: TCase[] }) {
  const imports = trpc.imports.list.useQuery({ clientId });
  const [state, setState] = useState<TStep>({ step: 'idle' });
  const cancel = useRef<(() => void) | null>(null);
  const utils = trpc.useUtils();
  const toast = useToast();

  const read = async (file: File) => {
    const resumable = file.size <= UPLOAD_LIMITS.document;
    const progress = (sent: number, total: number) => setState({ step: 'sending', name: file.name, sent, total, cancellable: !resumable });
    progress(0, file.size);
    try {
      if (resumable) {
        // Resumable, as other uploads: a dropped connection (or a reload, choosing the same file) goes on from where it stopped.
        const uploaded = await uploadFile(file, (fraction) => progress(Math.round(fraction * file.size), file.size));
        progress(file.size, file.size);
        setState({ step: 'preview', preview: await previewUploaded(uploaded.attachmentId) });
        return;
      }
      // Larger than any upload: sent whole, with a way to stop it.
      const upload = uploadChatExport(file, progress);
      cancel.current = upload.cancel;
      setState({ step: 'preview', preview: await upload.result });
    } catch (error) {
      setState(
        error instanceof CancelledImport ? { step: 'idle' } : { step: 'failed', message: `${file.name}: ${(error as Error).message}` },
      );
    } finally {
      cancel.current = null;
    }
  };
  const done = (result: { imported: number; duplicates: number; attachments: number }) => {
    setState({ step: 'idle' });
    const files = result.attachments ? ` and ${plural(result.attachments, 'file')}` : '';
    const already = result.duplicates ? ` (${plural(result.duplicates, 'message')} already on file)` : '';
    toast('success', `Imported ${plural(result.imported, 'message')}${files}${already}.`);
    void utils.imports.list.invalidate({ clientId });
    void utils.timeline.client.invalidate({ clientId });
    void utils.inbox.thread.invalidate({ clientId });
    void utils.inbox.threads.invalidate();
    void utils.timeline.documents.invalidate();
  };

  return (
    <section className="card" aria-labelledby="imports-title">
      <h2 id="imports-title">History from the phone</h2>
      {state.step === 'preview' ? (
        <ImportPreviewForm
          preview={state.preview}
          clientId={clientId}
          clientName={clientName}
          cases={cases}
          onDone={done}
          onClose={() => setState({ step: 'idle' })}
        />
      ) : (
        <>
          <p className="muted imports-intro">
            A chat with {clientName} on a lawyer&apos;s own phone: on the phone, open the chat, choose <strong>Export chat</strong> (with
            media, to bring the files), and choose the .zip or .txt here.
          </p>
          <div className="field">
            <label htmlFor="phone-export-file">WhatsApp export (.zip or .txt)</label>
            <input
              id="phone-export-file"
              type="file"
              accept=".zip,.txt,application/zip,text/plain"
              disabled={state.step === 'sending'}
              onChange={(e) => {
                const file = e.currentTarget.files?.[0];
                e.currentTarget.value = ''; // the same file may be chosen again
                if (file) void read(file);
              }}
            />
          </div>
          <div aria-live="polite">
            {state.step === 'sending' && (
              <div className="verify-progress" role="status">
                <p>
                  {state.sent < state.total
                    ? `Sending ${state.name}: ${formatBytes(state.sent)} of ${formatBytes(state.total)}`
                    : `Reading ${state.name}…`}
                </p>
                <div className="verify-progress-row">
                  {state.sent < state.total ? (
                    <progress max={state.total} value={state.sent} aria-label={`Sending ${state.name}`} />
                  ) : (
                    <progress aria-label={`Reading ${state.name}`} />
                  )}
                  {state.cancellable && (
                    <button type="button" className="button small ghost" onClick={() => cancel.current?.()}>
                      Cancel
                    </button>
                  )}
                </div>
              </div>
            )}
          </div>
          {state.step === 'failed' && (
            <p className="form-error" role="alert">
              {state.message}
            </p>
          )}
        </>
      )}
      <QueryStatus query={imports} loading="Loading imports…" padded={false}>
        {(list) =>
          list.length > 0 && (
            <>
              <h3 className="imports-heading" id="imports-list-title">
                Imported chats
              </h3>
              <ul className="row-list compact imports-list" aria-labelledby="imports-list-title">
                {list.map((i) => (
                  <li key={i.importId} className="import-row">
                    <span className="row-title">{i.fileName}</span>
                    <span className="row-sub">
                      {plural(i.imported, 'message')}
                      {i.attachments ? `, ${plural(i.attachments, 'file')}` : ''}
                      {i.firstAt && i.lastAt ? ` · ${formatDate(new Date(i.firstAt))} – ${formatDate(new Date(i.lastAt))}` : ''}
                    </span>
                    <span className="row-sub">
                      Imported {formatDateTime(i.committedAt)}
                      {i.committedBy ? ` by ${i.committedBy.name}` : ''} · SHA-256{' '}
                      <code title={i.fileSha256}>{i.fileSha256.slice(0, 12)}…</code>
                    </span>
                  </li>
                ))}
              </ul>
            </>
          )
        }
      </QueryStatus>
    </section>
  );
}
