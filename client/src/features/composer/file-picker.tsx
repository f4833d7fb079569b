import { useCallback, useId, useRef } from 'react';
import { formatBytes, UPLOAD_LIMITS } from '../../../../shared/media-limits';
import { showInvisibleCharacters } from '../../../../shared/visible-text';
import { shortType } from '../../lib/attachment-file';
import { acceptRisk, asDocument, canSendAsDocument, isSentAsDocument, pendingRisk } from './upload-file';
import { sentAsText, UPLOAD_LIMITS_TEXT } from './upload-limits-text';

type TProps = {
  file: File | null;
  onChoose: (file: File) => void;
  onClear: () => void;
  /** 0…1 while uploading. */
  progress: number | null;
  error: string | null;
};

const PREVIEWABLE = /^image\/(jpeg|png|webp|gif)$/;

/** A thumbnail of a chosen photo; its object URL lives as long as this image shows that file. */
function FileThumbnail({ file }: { file: File }) {
  const showFile = useCallback(
    (img: HTMLImageElement | null) => {
      if (!img) return;
      const url = URL.createObjectURL(file);
      img.src = url;
      return () => URL.revokeObjectURL(url);
    },
    [file],
  );
  return <img ref={showFile} alt="" />;
}

/**
 * The attach button and the chosen file (name, size, a thumbnail for photos) with a way to remove it.
 * Before a program or a web page can be sent the person is warned and asked (the composer will not
 * send it until then: see checkUploadSize); a photo or video over its limit may go as a document.
 */
export function FilePicker({ file, onChoose, onClear, progress, error }: TProps) {
  const input = useRef<HTMLInputElement>(null);
  const limitsId = useId();
  const risk = file ? pendingRisk(file) : null;
  const offerDocument = file !== null && !risk && canSendAsDocument(file);
  return (
    <>
      <input
        ref={input}
        type="file"
        className="visually-hidden"
        aria-label="Attach a file"
        tabIndex={-1}
        onChange={(e) => {
          const chosen = e.target.files?.[0];
          if (chosen) onChoose(chosen);
          e.target.value = '';
        }}
      />
      <button
        type="button"
        className="button ghost attach-button"
        onClick={() => input.current?.click()}
        title={`Attach a file (or drop or paste one here). ${UPLOAD_LIMITS_TEXT}`}
        aria-describedby={limitsId}
        disabled={progress !== null}
      >
        <svg
          aria-hidden="true"
          width="16"
          height="16"
          viewBox="0 0 24 24"
          fill="none"
          stroke="currentColor"
          strokeWidth="2"
          strokeLinecap="round"
          strokeLinejoin="round"
        >
          <path d="M21.4 11.1l-9.2 9.2a6 6 0 0 1-8.5-8.5l9.2-9.2a4 4 0 0 1 5.7 5.7l-9.2 9.2a2 2 0 0 1-2.8-2.8l8.5-8.5" />
        </svg>
        {file ? 'Another file' : 'Attach'}
      </button>
      {/* Once a file is chosen its own limit is shown beside it; the full list stays for screen readers. */}
      <span id={limitsId} className={file ? 'visually-hidden' : 'upload-limits'}>
        {UPLOAD_LIMITS_TEXT}
      </span>
      {file && (
        <div className={`chosen-file ${error ? 'has-error' : ''}`} role="group" aria-label="File to send">
          {PREVIEWABLE.test(file.type) ? (
            <FileThumbnail file={file} />
          ) : (
            <span className="document-icon" aria-hidden="true">
              {file.type ? shortType(file.type).slice(0, 4) : 'FILE'}
            </span>
          )}
          <span className="chosen-text">
            <span className="document-name" title={showInvisibleCharacters(file.name)}>
              {showInvisibleCharacters(file.name)}
            </span>
            <span className="document-meta">
              {formatBytes(file.size)},{' '}
              {isSentAsDocument(file) ? `sent as a document, up to ${formatBytes(UPLOAD_LIMITS.document)}` : sentAsText(file)}
              {progress !== null && ` · uploading ${Math.round(progress * 100)}%`}
            </span>
            {progress !== null && <progress max={1} value={progress} aria-label="Upload progress" />}
          </span>
          <button
            type="button"
            className="button small ghost"
            onClick={onClear}
            disabled={progress !== null}
            aria-label={`Remove ${showInvisibleCharacters(file.name)}`}
          >
            Remove
          </button>
        </div>
      )}
      {file && risk ? (
        <div className="form-error file-question" role="alert">
          <p>{risk}</p>
          <button type="button" className="button small ghost" onClick={() => onChoose(acceptRisk(file))}>
            Send anyway
          </button>{' '}
          <button type="button" className="button small ghost" onClick={onClear}>
            Don’t send it
          </button>
        </div>
      ) : (
        error && (
          <div className="form-error" role="alert">
            <p>{error}</p>
            {offerDocument && (
              <button type="button" className="button small ghost" onClick={() => onChoose(asDocument(file))}>
                Send as a document instead
              </button>
            )}
          </div>
        )
      )}
    </>
  );
}
