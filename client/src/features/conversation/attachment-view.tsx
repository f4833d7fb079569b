import { useState } from 'react';
import type { TAttachment } from '../../../../shared/communication';
import { formatBytes } from '../../../../shared/media-limits';
import { fileLabel, kindLabel, mediaUrl, shortType, visibleFileName } from '../../lib/attachment-file';
import { formatTime } from '../../lib/format';
import { PhotoThumbnail } from '../../ui/photo-thumbnail';

/** The file named in a sentence: its own name as sent (never re-cased), else "the photo". */
function fileInSentence(attachment: TAttachment, voice?: boolean): string {
  return attachment.fileName !== null ? visibleFileName(attachment.fileName) : `the ${kindLabel(attachment.kind, voice).toLowerCase()}`;
}

/** `caption`: the message's text, shown with the photo full size. */
type TProps = { attachment: TAttachment; voice?: boolean; outbound: boolean; caption?: string | null };

/**
 * A file as a person expects it: photos and stickers as thumbnails that open full size, audio and
 * video as players, anything else as a card with name, size, type and a download link. A file not
 * downloaded yet, or that could not be, says so.
 */
export function AttachmentView({ attachment, voice, outbound, caption }: TProps) {
  if (attachment.id < 0) return <p className="attachment-state">Sending {fileLabel(attachment)}…</p>;
  if (attachment.state === 'pending' && attachment.error) {
    // A try failed (a cut connection, a checksum that did not match): said, with the next try.
    const next = attachment.nextAttemptAt ? new Date(attachment.nextAttemptAt) : null;
    return (
      <p className="attachment-state retrying" data-state="retrying">
        {outbound ? 'Preparing' : 'Downloading'} {fileInSentence(attachment, voice)} failed: {attachment.error}{' '}
        <span className="attachment-retry">It will be tried again{next ? ` at ${formatTime(next)}` : ' shortly'}.</span>
      </p>
    );
  }
  if (attachment.state === 'pending') {
    return (
      <p className="attachment-state" role="status">
        {outbound ? 'Preparing' : 'Downloading'} {fileInSentence(attachment, voice)}…
      </p>
    );
  }
  if (attachment.state === 'failed') {
    // Not an alert: opening a conversation must not interrupt once per old failure.
    return (
      <p className="attachment-state failed" data-state="failed">
        Failed: {fileInSentence(attachment, voice)} could not be downloaded — {attachment.error ?? 'the provider did not send it.'}
      </p>
    );
  }
  const url = mediaUrl(attachment.id);
  if ((attachment.kind === 'image' || attachment.kind === 'sticker') && /^image\/(jpeg|png|webp)/.test(attachment.mimeType)) {
    const alt =
      attachment.fileName !== null
        ? visibleFileName(attachment.fileName)
        : attachment.kind === 'sticker'
          ? 'Sticker'
          : 'Photo from the conversation';
    return <StoredPhoto url={url} alt={alt} caption={caption ?? null} sticker={attachment.kind === 'sticker'} />;
  }
  if (attachment.kind === 'audio') {
    return (
      <figure className="attachment-player">
        <figcaption>{voice ? 'Voice note' : fileLabel(attachment)}</figcaption>
        <audio controls preload="none" src={url} />
      </figure>
    );
  }
  if (attachment.kind === 'video') {
    return (
      <figure className="attachment-player">
        <video controls preload="metadata" src={url} />
        <figcaption>
          <a href={url} download>
            Download video
          </a>
          {attachment.size !== null && ` · ${formatBytes(attachment.size)}`}
        </figcaption>
      </figure>
    );
  }
  return (
    <div className="document-card">
      <span className="document-icon" aria-hidden="true">
        {shortType(attachment.mimeType).slice(0, 4)}
      </span>
      <span className="document-text">
        <span className="document-name" title={fileLabel(attachment)}>
          {fileLabel(attachment)}
        </span>
        <span className="document-meta">
          {shortType(attachment.mimeType)}
          {attachment.size !== null && ` · ${formatBytes(attachment.size)}`}
        </span>
      </span>
      <a className="button small" href={url} download aria-label={`Download ${fileLabel(attachment)}`}>
        Download
      </a>
    </div>
  );
}

/** Where an erased file was: its bytes are gone, the record of it stays (server/records/README.md "Records"). */
export function ErasedFile() {
  return (
    <p className="attachment-state erased" data-state="erased">
      File erased
    </p>
  );
}

/**
 * A photo whose bytes may have been erased since the record was read (retention runs while pages
 * are open): a picture that fails to load is asked about once, and a 410 shows as an erased file
 * instead of a broken image.
 */
function StoredPhoto({ url, alt, caption, sticker }: { url: string; alt: string; caption: string | null; sticker: boolean }) {
  const [erased, setErased] = useState(false);
  const checkGone = () =>
    void fetch(url, { method: 'HEAD' }).then(
      (res) => res.status === 410 && setErased(true),
      () => undefined,
    );
  if (erased) return <ErasedFile />;
  return <PhotoThumbnail src={url} alt={alt} caption={caption} sticker={sticker} onError={checkGone} />;
}
