import type { TSharedContact } from '../../../shared/communication';

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
