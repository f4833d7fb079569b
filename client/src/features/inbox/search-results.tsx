import { Fragment } from 'react';
import { Link } from 'wouter';
import { formatWhen } from '../../lib/format';
import { olderOf, type TOlder } from '../../lib/older-pages';
import { threadPath, trpc, type TOutputs } from '../../lib/trpc';
import { QueryStatus } from '../../ui/query-status';
import { PhoneNumber } from '../../ui/phone-number';

// The server marks matching words with these two characters (server/inbox/search-messages.ts).
const START = '\u0002';
const STOP = '\u0003';

/** The snippet with its matching words in <mark>, as text: nothing from a message is ever HTML. */
function Highlighted({ text }: { text: string }) {
  const parts = text.split(START);
  return (
    <>
      {parts.map((part, i) => {
        if (i === 0) return <Fragment key={i}>{part}</Fragment>;
        const [hit, rest] = part.split(STOP);
        return (
          <Fragment key={i}>
            <mark>{hit}</mark>
            {rest}
          </Fragment>
        );
      })}
    </>
  );
}

/** The snippet, with "…" where it leaves out the start or the end of the message. */
function Snippet({ highlight, body }: { highlight: string; body: string }) {
  const plain = highlight.replaceAll(START, '').replaceAll(STOP, '').trim();
  const at = body.indexOf(plain);
  const cutStart = at < 0 || body.slice(0, at).trim() !== ''; // not found: fragments joined by the server
  const cutEnd = at < 0 || body.slice(at + plain.length).trim() !== '';
  return (
    <>
      {cutStart ? '… ' : ''}
      <Highlighted text={highlight} />
      {cutEnd ? ' …' : ''}
    </>
  );
}

/**
 * Messages matching the words typed in the inbox's search box; a hit opens its conversation at that
 * message. The best 30 first, then 30 more at a time: how many are shown is always said.
 */
export function SearchResults({ q }: { q: string }) {
  const results = trpc.inbox.search.useInfiniteQuery(
    { q },
    { getNextPageParam: (page) => page.nextCursor ?? undefined, placeholderData: (previous) => previous },
  );
  // A failed search with the previous words' hits still there keeps showing them.
  return (
    <QueryStatus query={{ ...results, isError: results.isError && !results.data }} loading="Searching…" padded={false}>
      {(data) => <SearchHits hits={data.pages.flatMap((page) => page.items)} more={olderOf(results)} />}
    </QueryStatus>
  );
}

type TSearchHit = TOutputs['inbox']['search']['items'][number];

/** The hits found so far, and the way to more of them. */
function SearchHits({ hits, more }: { hits: TSearchHit[]; more: TOlder }) {
  if (!hits.length)
    return (
      <p className="empty">No chat messages with those words. Search looks in the text of chat messages (not names, notes or e-mails).</p>
    );
  return (
    <div className="search-results-box">
      <p className="search-count muted" role="status">
        {more.hasMore ? `The best ${hits.length} matches shown` : `${hits.length} ${hits.length === 1 ? 'match' : 'matches'}, all shown`}
      </p>
      <ul className="thread-list search-results" aria-label="Search results">
        {hits.map((hit) => (
          <li key={hit.id}>
            <Link
              href={`${threadPath({ clientId: hit.clientId, peerPhone: hit.peerPhone })}?message=${hit.id}`}
              className="thread-row"
              data-hit={hit.id}
            >
              <span className="thread-main">
                <span className="thread-top">
                  <span className="thread-name">
                    {hit.clientName ??
                      (hit.metadata.contact_name ? `~${hit.metadata.contact_name}` : <PhoneNumber value={hit.peerPhone} />)}
                  </span>
                  <time className="thread-time" dateTime={hit.createdAt.toISOString()}>
                    {formatWhen(hit.createdAt)}
                  </time>
                </span>
                <span className="search-snippet">
                  {hit.direction === 'outbound' ? 'You: ' : ''}
                  <Snippet highlight={hit.highlight} body={hit.body} />
                </span>
              </span>
            </Link>
          </li>
        ))}
        {(more.hasMore || more.failed) && (
          <li className="list-more">
            {more.failed && <span className="form-error">Could not load more matches. </span>}
            <button type="button" className="button ghost small" onClick={more.load} disabled={more.loading}>
              {more.loading ? 'Loading more matches…' : 'Show more'}
            </button>
          </li>
        )}
      </ul>
    </div>
  );
}
