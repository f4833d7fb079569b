import type { TCommunication } from '../../../../shared/communication';
import { ErasedNote } from '../records';
import { AttachmentView, ErasedFile } from './attachment-view';
import { ContactCards } from './contact-cards';
import { EditHistory } from './edit-history';
import { LocationCard } from './location-card';
import { ReplyQuote, type TQuoted } from './reply-quote';

export type { TQuoted };

/** What a phone's export kept in place of a message's content. */
const IMPORT_GAP = {
  omitted: 'The export left this file out (exported without media)',
  file: 'A file the export names but did not include',
  deleted: 'Deleted on the phone before the export',
};

type TProps = {
  item: TCommunication;
  /** The message this one answers, when it is loaded (null: not loaded; undefined: not a reply). */
  quoted?: TQuoted | null;
  onShowMessage?: (id: number) => void;
  /** false where the sender is already named as the firm's phone (the timeline's line above). */
  echoLabel?: boolean;
};

/** The body as its kind is read: labels, what it answers, its file, a place or contacts, then its text. */
export function MessageContent({ item, quoted, onShowMessage, echoLabel = true }: TProps) {
  const m = item.metadata;
  const outbound = item.direction === 'outbound';
  const kind = m.kind ?? 'text';
  const labels = [
    m.imported && `Imported from the phone's export · written by ${m.imported.sender}`,
    m.forwarded && 'Forwarded',
    echoLabel && m.echo && "Sent from the firm's phone",
  ].filter(Boolean);
  // Retention or an erasure request destroyed what it said and its files (server/records/README.md "Records"): the
  // record stays in its place, saying so, instead of an empty bubble or a broken picture.
  if (m.erased_at)
    return (
      <>
        {labels.length > 0 && <p className="bubble-label">{labels.join(' · ')}</p>}
        {item.attachments.map((a) => (
          <ErasedFile key={a.id} />
        ))}
        <ErasedNote erasedAt={m.erased_at} by={m.erased_by} className="bubble-text erased" />
      </>
    );
  return (
    <>
      {labels.length > 0 && <p className="bubble-label">{labels.join(' · ')}</p>}
      {m.context_id && quoted !== undefined && <ReplyQuote quoted={quoted} onShow={(id) => onShowMessage?.(id)} />}
      {item.attachments.map((a) => (
        <AttachmentView key={a.id} attachment={a} voice={m.voice} outbound={outbound} caption={item.body || null} />
      ))}
      {m.location ? (
        <LocationCard location={m.location} />
      ) : m.contacts ? (
        <ContactCards contacts={m.contacts} />
      ) : (
        item.body && (
          <p className={`bubble-text ${m.revoked_at ? 'revoked' : ''}`}>
            {(kind === 'button' || kind === 'list') && <span className="choice-label">Chose: </span>}
            {item.body}
          </p>
        )
      )}
      {m.imported?.missing && (
        <p className="bubble-label">
          {IMPORT_GAP[m.imported.missing]}
          {m.imported.missing === 'file' && m.imported.fileName ? `: ${m.imported.fileName}` : ''}
        </p>
      )}
      {m.imported?.edited && <p className="bubble-label">Edited on the phone before the export</p>}
      {m.revoked_at && (
        <p className="bubble-label revoked-note">
          {outbound ? "Deleted from the firm's phone" : 'Deleted by the client'} · kept on the firm&apos;s record
        </p>
      )}
      {m.edits && m.edits.length > 0 && <EditHistory edits={m.edits} />}
    </>
  );
}
