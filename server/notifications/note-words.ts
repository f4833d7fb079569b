import { sql, type Sql } from '../core/sql';

// A mention's notification shows the note's first words in the bell, and only there: the list is
// read under the walls (notifications.ts), a desktop notification never carries them, logs never do.

/** How much of a mentioning note the bell shows. */
export const NOTE_WORDS = 140;

/** The column: the note's start, its spaces made single, one character more than shown (to tell it goes on). `n`: the notification, `m`: its record. */
export const NOTE_WORDS_COLUMN: Sql = sql`CASE WHEN n.kind = 'mention' AND m.type = 'chat_note'
  THEN left(btrim(regexp_replace(m.body, '[[:space:]]+', ' ', 'g')), ${NOTE_WORDS + 1}) END`;

/** Cut at a word where the note is longer than the bell shows. */
export function firstWords(text: string | null): string | null {
  if (!text) return null;
  if (text.length <= NOTE_WORDS) return text;
  const cut = text.slice(0, NOTE_WORDS);
  const space = cut.lastIndexOf(' ');
  return `${(space > NOTE_WORDS / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
