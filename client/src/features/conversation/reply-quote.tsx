import { showInvisibleCharacters } from '../../../../shared/visible-text';

export type TQuoted = { id: number; body: string; direction: string | null; kind: string; fileName?: string | null };

const KIND_NAME: Partial<Record<string, string>> = {
  image: 'Photo',
  video: 'Video',
  audio: 'Audio',
  document: 'Document',
  sticker: 'Sticker',
  location: 'Location',
  contacts: 'Contact',
};

/** The quoted message in a line: what it is when not plain text ("Photo · the caption"), then its text. */
function quoteText(quoted: TQuoted): string {
  // A file name is the sender's: a direction override in it must not turn "fdp.exe" into "exe.pdf".
  const what = (quoted.fileName != null ? showInvisibleCharacters(quoted.fileName) : null) ?? KIND_NAME[quoted.kind];
  if (!what) return quoted.body || '(no text)';
  if (!quoted.body || quoted.body.startsWith(what)) return quoted.body || what;
  return `${what} · ${quoted.body}`;
}

/** What a reply answers: the quoted message when it is in the thread, with a way to go to it. */
export function ReplyQuote({ quoted, onShow }: { quoted: TQuoted | null; onShow: (id: number) => void }) {
  if (!quoted) return <p className="reply-quote missing">Reply to an earlier message</p>;
  const text = quoteText(quoted);
  return (
    <button type="button" className="reply-quote" onClick={() => onShow(quoted.id)} aria-label={`Reply to: ${text}. Show that message`}>
      <span className="reply-who">{quoted.direction === 'outbound' ? 'Firm' : 'Client'}</span>
      <span className="reply-text">{text.length > 140 ? `${text.slice(0, 140)}…` : text}</span>
    </button>
  );
}
