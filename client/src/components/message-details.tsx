import type { TCommunication, TLocation, TSharedContact } from '../../../shared/communication';
import { formatDateTime } from '../lib/format';

/** A shared location: the place and a map link (OpenStreetMap: no key, no tracking script). */
export function LocationCard({ location }: { location: TLocation }) {
  const map = `https://www.openstreetmap.org/?mlat=${location.latitude}&mlon=${location.longitude}#map=17/${location.latitude}/${location.longitude}`;
  return (
    <div className="location-card">
      <svg className="location-pin" aria-hidden="true" width="20" height="20" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2">
        <path d="M12 22s7-6.1 7-12a7 7 0 0 0-14 0c0 5.9 7 12 7 12z" />
        <circle cx="12" cy="10" r="2.5" />
      </svg>
      <span>
        <strong>{location.name ?? 'Shared location'}</strong>
        {location.address && <span className="location-address">{location.address}</span>}
        <a href={map} target="_blank" rel="noopener noreferrer">
          Open map
        </a>
      </span>
    </div>
  );
}

/** Contacts the client shared: a card each, numbers listed. */
export function ContactCards({ contacts }: { contacts: TSharedContact[] }) {
  return (
    <ul className="contact-cards" aria-label="Shared contacts">
      {contacts.map((contact, i) => (
        <li key={i} className="contact-card">
          <strong>{contact.name}</strong>
          {contact.phones.map((phone) => (
            <span key={phone}>{phone}</span>
          ))}
        </li>
      ))}
    </ul>
  );
}

/** What a reply answers: the quoted message when it is in the thread, with a way to go to it. */
export function ReplyQuote({ quoted, onShow }: { quoted: { id: number; body: string; direction: string | null; kind: string } | null; onShow: (id: number) => void }) {
  if (!quoted) return <p className="reply-quote missing">Reply to an earlier message</p>;
  const text = quoted.body || (quoted.kind === 'text' ? '(no text)' : quoted.kind);
  return (
    <button type="button" className="reply-quote" onClick={() => onShow(quoted.id)} aria-label={`Reply to: ${text}. Show that message`}>
      <span className="reply-who">{quoted.direction === 'outbound' ? 'You' : 'Client'}</span>
      <span className="reply-text">{text.length > 140 ? `${text.slice(0, 140)}…` : text}</span>
    </button>
  );
}

/** Reactions under a message; who reacted is named when more than one number could have. */
export function ReactionChips({ reactions, showWho }: { reactions: NonNullable<TCommunication['metadata']['reactions']>; showWho: boolean }) {
  if (!reactions.length) return null;
  return (
    <ul className="reaction-chips" aria-label="Reactions">
      {reactions.map((r) => (
        <li key={r.from} title={`+${r.from}`}>
          <span aria-label={`reaction ${r.emoji}`}>{r.emoji}</span>
          {showWho && <span className="reaction-who">+{r.from.slice(-4)}</span>}
        </li>
      ))}
    </ul>
  );
}

/** "edited", opening the earlier texts with when each was replaced. */
export function EditHistory({ edits }: { edits: NonNullable<TCommunication['metadata']['edits']> }) {
  return (
    <details className="edit-history">
      <summary>edited</summary>
      <ol>
        {edits.map((edit, i) => (
          <li key={edit.id ?? i}>
            <span className="edit-body">{edit.body || '(empty)'}</span>
            {edit.at && <time dateTime={edit.at}> · replaced {formatDateTime(new Date(edit.at))}</time>}
          </li>
        ))}
      </ol>
    </details>
  );
}
