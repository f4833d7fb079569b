import { useId, useRef } from 'react';
import { formatBytes, uploadKindOf } from '../../../../shared/media-limits';
import { checkUploadSize } from './upload-file';

/** The media a template's header holds, as the catalogue names it. */
export const HEADER_FORMATS = ['DOCUMENT', 'IMAGE', 'VIDEO'] as const;
export type THeaderFormat = (typeof HEADER_FORMATS)[number];

/** Whether a template's header is a file to send with it (a text header or none is not). */
export function isMediaHeader(format: string | null | undefined): format is THeaderFormat {
  return (HEADER_FORMATS as readonly string[]).includes(format ?? '');
}

const HEADER_WORDS: Record<THeaderFormat, { noun: string; accept: string | undefined; choose: string }> = {
  DOCUMENT: { noun: 'a document', accept: undefined, choose: 'Choose the document…' },
  IMAGE: { noun: 'a photo', accept: 'image/jpeg,image/png', choose: 'Choose the photo…' },
  VIDEO: { noun: 'a video', accept: 'video/mp4,video/3gpp', choose: 'Choose the video…' },
};

/** "This template starts with a document." */
export function headerSentence(format: THeaderFormat): string {
  return `This template starts with ${HEADER_WORDS[format].noun}.`;
}

/** What the catalogue's list adds to a template's name when it needs a file. */
export function headerMark(format: string | null | undefined): string {
  return isMediaHeader(format) ? ` — needs ${HEADER_WORDS[format].noun}` : '';
}

/**
 * Why this file cannot be the template's header, before anything is uploaded: the wrong kind (a
 * photo for a document header, a PDF for a video), empty, or over its limit. Null: it may go.
 */
export function checkHeaderFile(file: File, format: THeaderFormat): string | null {
  const kind = uploadKindOf(file.type || 'application/octet-stream');
  if (format === 'IMAGE' && kind !== 'image')
    return `${file.name} is not a JPEG or PNG photo: this template starts with a photo. Choose a photo.`;
  if (format === 'VIDEO' && kind !== 'video')
    return `${file.name} is not an MP4 or 3GP video: this template starts with a video. Choose a video.`;
  if (format === 'DOCUMENT' && kind !== 'document')
    return `${file.name} is ${kind === 'image' ? 'a photo' : kind === 'video' ? 'a video' : 'an audio file'}: this template starts with a document. Choose a document (a PDF, for example).`;
  return checkUploadSize(file);
}

/** The file a template's header carries: what it must be, the one chosen (or why it will not do), and upload progress. */
export function TemplateHeaderFile({
  format,
  file,
  onChoose,
  error,
  progress,
}: {
  format: THeaderFormat;
  file: File | null;
  onChoose: (file: File | null) => void;
  error: string | null;
  /** 0…1 while uploading. */
  progress: number | null;
}) {
  const input = useRef<HTMLInputElement>(null);
  const sentenceId = useId();
  const words = HEADER_WORDS[format];
  return (
    <div className="template-header" role="group" aria-labelledby={sentenceId} data-header={format.toLowerCase()}>
      <p id={sentenceId} className="template-header-sentence">
        {headerSentence(format)}
      </p>
      <input
        ref={input}
        type="file"
        className="visually-hidden"
        tabIndex={-1}
        accept={words.accept}
        aria-label={`Header file (${words.noun.replace(/^an? /, '')})`}
        onChange={(e) => {
          const chosen = e.target.files?.[0];
          if (chosen) onChoose(chosen);
          e.target.value = '';
        }}
      />
      <span className="template-header-row">
        <button type="button" className="button small ghost" onClick={() => input.current?.click()} disabled={progress !== null}>
          {file ? 'Another file…' : words.choose}
        </button>
        {file && (
          <span className="template-header-file">
            <strong>{file.name}</strong> <span className="muted">{formatBytes(file.size)}</span>
            {progress !== null && ` · uploading ${Math.round(progress * 100)}%`}
            {progress === null && (
              <button type="button" className="link-button" onClick={() => onChoose(null)} aria-label={`Remove ${file.name}`}>
                Remove
              </button>
            )}
          </span>
        )}
      </span>
      {progress !== null && <progress max={1} value={progress} aria-label="Upload progress" />}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
