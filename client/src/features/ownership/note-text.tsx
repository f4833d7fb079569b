import { Fragment } from 'react';

/** A note's text with each "@Full Name" of the people it mentions marked; as text, never HTML. */
export function NoteText({ body, names }: { body: string; names: string[] }) {
  const wanted = names.filter(Boolean).map((name) => `@${name}`);
  if (!wanted.length) return <p className="note-body">{body}</p>;
  // Longest first, so "@Ann Lee" is marked whole where "@Ann" is someone too.
  const pattern = new RegExp(
    `(${wanted
      .toSorted((a, b) => b.length - a.length)
      .map(escapeRegExp)
      .join('|')})`,
    'g',
  );
  return (
    <p className="note-body">
      {body.split(pattern).map((part, i) =>
        wanted.includes(part) ? (
          <strong key={i} className="mention">
            {part}
          </strong>
        ) : (
          <Fragment key={i}>{part}</Fragment>
        ),
      )}
    </p>
  );
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
