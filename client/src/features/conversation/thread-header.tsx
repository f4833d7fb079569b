import { Fragment, type ReactNode } from 'react';
import { Link, useSearch } from 'wouter';
import { inboxListPath } from '../../lib/inbox-address';
import { PhoneNumber } from '../../ui/phone-number';

/**
 * The conversation's name and numbers, a way back to the inbox and, for a client, to their file;
 * then its owner and state (`ownership`). A number with no name is the heading itself, and is not
 * said twice.
 */
export function ThreadHeader({
  name,
  phone,
  numbers,
  clientId,
  ownership,
}: {
  name: string | null;
  phone: string | undefined;
  /** The numbers a reply may go to. */
  numbers: string[];
  clientId: number | null;
  ownership?: ReactNode;
}) {
  const shown = name ? numbers : numbers.filter((n) => n !== phone);
  // Back to the list as it was left: the same filter and state (Unread, Done…).
  const back = inboxListPath(useSearch());
  return (
    <header className="thread-header">
      <Link href={back} className="back-link">
        ← Inbox
      </Link>
      <div className="thread-who">
        <h2>{name ?? <PhoneNumber value={phone} />}</h2>
        {(name || shown.length > 0 || clientId !== null) && (
          <p className="muted">
            {shown.length ? (
              shown.map((n, i) => (
                <Fragment key={n}>
                  {i > 0 && ', '}
                  <PhoneNumber value={n} />
                </Fragment>
              ))
            ) : (
              <PhoneNumber value={phone} />
            )}
            {clientId !== null && (
              <>
                {' · '}
                <Link href={`/clients/${clientId}`}>Client file</Link>
              </>
            )}
          </p>
        )}
      </div>
      {ownership}
    </header>
  );
}
