import { QueryTypes } from 'sequelize';
import { db } from '../core/db/db';

/**
 * The people a note mentions: the ids its writer chose from the `@` completion, and every active
 * person whose full name follows an `@` in the body ("@Dana Lee,"), matched regardless of case and
 * longest name first, so "@Dana Leeds" is not read as Dana Lee.
 */
export async function findMentions(body: string, chosen: number[]): Promise<number[]> {
  const people = await db().query<{ id: number; name: string }>('SELECT id, name FROM users WHERE deactivated_at IS NULL', {
    type: QueryTypes.SELECT,
  });
  const text = body.toLocaleLowerCase();
  const named = people
    .sort((a, b) => b.name.length - a.name.length)
    .filter((person) => mentionedIn(text, `@${person.name.toLocaleLowerCase()}`))
    .map((person) => person.id);
  return [...new Set([...chosen, ...named])];
}

/** Whether `mention` occurs in `text` as a whole name: not followed by a letter or digit. */
function mentionedIn(text: string, mention: string): boolean {
  for (let at = text.indexOf(mention); at !== -1; at = text.indexOf(mention, at + 1)) {
    const next = text[at + mention.length];
    if (next === undefined || !/[\p{L}\p{N}]/u.test(next)) return true;
  }
  return false;
}
