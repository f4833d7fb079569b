import { useRef } from 'react';
import { formatBytes } from '../../../shared/media-limits';

type TProps = {
  file: File | null;
  onChoose: (file: File) => void;
  onClear: () => void;
  /** 0…1 while uploading. */
  progress: number | null;
  error: string | null;
};

/** The attach button and the chosen file (name, size, a thumbnail for photos) with a way to remove it. */
export function FilePicker({ file, onChoose, onClear, progress, error }: TProps) {
  const input = useRef<HTMLInputElement>(null);
  const preview = file && /^image\/(jpeg|png|webp|gif)$/.test(file.type) ? URL.createObjectURL(file) : null;
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
      <button type="button" className="button ghost attach-button" onClick={() => input.current?.click()} title="Attach a file (or drop or paste one here)">
        <svg aria-hidden="true" width="16" height="16" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round">
          <path d="M21.4 11.1l-9.2 9.2a6 6 0 0 1-8.5-8.5l9.2-9.2a4 4 0 0 1 5.7 5.7l-9.2 9.2a2 2 0 0 1-2.8-2.8l8.5-8.5" />
        </svg>
        Attach
      </button>
      {file && (
        <div className="chosen-file" role="group" aria-label="File to send">
          {preview ? <img src={preview} alt="" onLoad={() => URL.revokeObjectURL(preview)} /> : <span className="document-icon" aria-hidden="true">FILE</span>}
          <span className="chosen-text">
            <span className="document-name">{file.name}</span>
            <span className="document-meta">
              {formatBytes(file.size)}
              {progress !== null && ` · uploading ${Math.round(progress * 100)}%`}
            </span>
            {progress !== null && <progress max={1} value={progress} aria-label="Upload progress" />}
          </span>
          <button type="button" className="link-button" onClick={onClear} disabled={progress !== null}>
            Remove
          </button>
        </div>
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </>
  );
}
