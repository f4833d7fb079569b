import { Link } from 'wouter';
import type { TGone } from './gone';

type TWhat = 'conversation' | 'client' | 'case';

/**
 * What replaces a conversation, client or case that answers NOT_FOUND: for one that was on screen,
 * that access has ended (its content is no longer shown); for one that never loaded, that there is
 * none — worded alike whether it does not exist or is walled, as the server answers.
 */
export function AccessGone({ gone, what, back }: { gone: TGone; what: TWhat; back: { href: string; label: string } }) {
  return (
    <div className="access-gone" role="alert" data-gone={gone}>
      <p className="access-gone-title">{gone === 'lost' ? `You no longer have access to this ${what}.` : `This ${what} was not found.`}</p>
      <p className="muted">
        {gone === 'lost'
          ? 'Who may see it has changed. Ask a director if you need it.'
          : 'The link may be wrong, or it is not open to you.'}
      </p>
      <Link href={back.href} className="button small">
        {back.label}
      </Link>
    </div>
  );
}
