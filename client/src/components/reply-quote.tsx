export type TQuoted = { id: number; body: string; direction: string | null; kind: string };

/** What a reply answers: the quoted message when it is in the thread, with a way to go to it. */
export function ReplyQuote({ quoted, onShow }: { quoted: TQuoted | null; onShow: (id: number) => void }) {
  if (!quoted) return <p className="reply-quote missing">Reply to an earlier message</p>;
  const text = quoted.body || (quoted.kind === 'text' ? '(no text)' : quoted.kind);
  return (
    <button type="button" className="reply-quote" onClick={() => onShow(quoted.id)} aria-label={`Reply to: ${text}. Show that message`}>
      <span className="reply-who">{quoted.direction === 'outbound' ? 'Firm' : 'Client'}</span>
      <span className="reply-text">{text.length > 140 ? `${text.slice(0, 140)}…` : text}</span>
    </button>
  );
}
