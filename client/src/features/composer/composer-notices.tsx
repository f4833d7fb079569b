import type { TLengthState } from './message-length';
import type { useComposerFile } from './use-composer-file';
import type { TFirmWording } from './use-firm-wording';

/**
 * Above the message box: the file a caption was written for, gone (attach again, or send the text
 * alone) or still uploading from another screen; and the firm wording just inserted, with Undo.
 */
export function ComposerNotices({
  file,
  attachment,
  wording,
}: {
  file: File | null;
  attachment: ReturnType<typeof useComposerFile>;
  wording: TFirmWording;
}) {
  const fileNote = attachment.note;
  return (
    <>
      {attachment.lost && fileNote && (
        <p className="file-lost" role="note">
          <span>
            <strong>{fileNote.name}</strong> — not sent: attach again
          </span>
          <button type="button" className="link-button" onClick={attachment.forgetNote}>
            Send the text without it
          </button>
        </p>
      )}
      {!file && fileNote && attachment.uploadingElsewhere && (
        <p className="file-lost" role="status">
          <strong>{fileNote.name}</strong> is still uploading; it is sent when done.
        </p>
      )}
      {wording.insertion && (
        <p className="wording-note">
          <span role="status">
            {wording.insertedName ? `“${wording.insertedName}” inserted` : 'Wording inserted'}
            {wording.missingNames.length > 0 && ` — no ${wording.missingNames.map(describeName).join(' or ')} to fill in: check the text`}
          </span>
          {' · '}
          <button type="button" className="link-button" onClick={wording.undo}>
            Undo
          </button>
        </p>
      )}
    </>
  );
}

/** Under the message box: how long the text is near or over its limit (and why it is refused), and a draft not kept. */
export function ComposerLength({ length, lengthId, kept }: { length: TLengthState; lengthId: string; kept: boolean }) {
  return (
    <>
      {length.state !== 'quiet' && (
        <div className={`composer-length ${length.state}`}>
          {length.refusal && (
            <p className="form-error" role="alert">
              {length.refusal}
            </p>
          )}
          <p id={lengthId} className="composer-count">
            {length.counter}
          </p>
        </div>
      )}
      {!kept && <p className="muted composer-count">This draft is not kept on this device: the browser's storage is full or turned off.</p>}
    </>
  );
}

/** A placeholder left empty, in words. */
const describeName = (key: string) =>
  ({ 'client.firstName': 'client’s first name', 'client.name': 'client’s name', 'me.name': 'name of yours' })[key] ?? key;
