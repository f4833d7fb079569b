import type { TPersonRef } from './use-ownership-actions';

/** The longest name typed after "@" that is still looked up. */
const MAX_QUERY = 40;
/** How many names the completion list shows at once. */
export const MAX_MATCHES = 6;

/**
 * The "@name" being typed at the caret: where its "@" is and what follows it. An "@" counts at the
 * start or after a space or punctuation (so an e-mail address typed in a note is left alone); the
 * query may hold spaces ("@Dee Di"), not a new line.
 */
export function mentionTokenAt(text: string, caret: number): { start: number; query: string } | null {
  const before = text.slice(0, caret);
  const start = before.lastIndexOf('@');
  if (start < 0 || caret - start - 1 > MAX_QUERY) return null;
  if (start > 0 && !/[\s([{"'“‘]/.test(before[start - 1]!)) return null;
  const query = before.slice(start + 1);
  if (/\n/.test(query) || query.startsWith(' ')) return null;
  return { start, query };
}

/** People whose name, or one of its words, starts with the query (any case); a query with a space must start the name. */
export function matchPeople(people: TPersonRef[], query: string): TPersonRef[] {
  const q = query.toLocaleLowerCase();
  return people
    .filter((p) => {
      const name = p.name.toLocaleLowerCase();
      if (q.includes(' ')) return name.startsWith(q);
      return name.split(/\s+/).some((word) => word.startsWith(q));
    })
    .slice(0, MAX_MATCHES);
}

/** The people picked whose "@Full Name" is still in the text (one deleted by hand is no longer mentioned). */
export function mentionedIn(text: string, picked: TPersonRef[]): number[] {
  return [...new Set(picked.filter((p) => text.includes(`@${p.name}`)).map((p) => p.id))];
}
