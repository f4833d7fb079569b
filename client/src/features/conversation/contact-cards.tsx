import type { TSharedContact } from '../../../../shared/communication';
import { parsePhoneDigits } from '../../../../shared/phone';
import { usePhoneFormatter } from '../../lib/format';

/** Contacts the client shared: a card each, its numbers formatted and callable. */
export function ContactCards({ contacts }: { contacts: TSharedContact[] }) {
  const format = usePhoneFormatter();
  return (
    <ul className="contact-cards" aria-label="Shared contacts">
      {contacts.map((contact, i) => (
        <li key={i} className="contact-card">
          <strong>{contact.name}</strong>
          {contact.phones.map((phone) => {
            // A number shared without its country code (or not a number at all) is shown as sent.
            const digits = /^\s*(\+|00)/.test(phone) ? parsePhoneDigits(phone) : null;
            return digits ? (
              <a key={phone} href={`tel:+${digits}`}>
                {format(digits)}
              </a>
            ) : (
              <span key={phone}>{phone}</span>
            );
          })}
          {contact.phones.length === 0 && <span className="muted">No number shared</span>}
        </li>
      ))}
    </ul>
  );
}
