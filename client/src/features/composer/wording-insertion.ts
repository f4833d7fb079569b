import { renderTemplate, type TTemplateValues } from '../../../../shared/templates';

// Firm wording put into what a person is writing: added at the cursor, never over their text, and
// tracked while it is untouched so that it can follow the case chosen after it, or be taken out.

/** The wording inserted last: where it is, its text, and the line breaks added around it. */
export type TInsertion = { templateId: string; start: number; text: string; lead: string; trail: string };

/**
 * Adds `text` at `caret` (clamped to the body), on its own line when there is text before or after
 * it. Nothing already typed is replaced or lost.
 */
export function insertWording(
  body: string,
  caret: number,
  text: string,
  templateId: string,
): { body: string; insertion: TInsertion; caret: number } {
  const at = Math.min(Math.max(caret, 0), body.length);
  const before = body.slice(0, at);
  const after = body.slice(at);
  const lead = before === '' || before.endsWith('\n') ? '' : '\n';
  const trail = after === '' || after.startsWith('\n') ? '' : '\n';
  const start = at + lead.length;
  return { body: before + lead + text + trail + after, insertion: { templateId, start, text, lead, trail }, caret: start + text.length };
}

/** Where the inserted text still stands unchanged (the occurrence nearest where it was put), or null once edited. */
export function locateWording(body: string, insertion: TInsertion): number | null {
  const { text, start } = insertion;
  if (!text) return null;
  if (body.startsWith(text, start)) return start;
  let nearest: number | null = null;
  for (let at = body.indexOf(text); at >= 0; at = body.indexOf(text, at + 1)) {
    if (nearest === null || Math.abs(at - start) < Math.abs(nearest - start)) nearest = at;
  }
  return nearest;
}

/** The body with the untouched inserted text replaced by `text` (new values filled in), or null once edited. */
export function replaceWording(body: string, insertion: TInsertion, text: string): { body: string; insertion: TInsertion } | null {
  const at = locateWording(body, insertion);
  if (at === null) return null;
  return { body: body.slice(0, at) + text + body.slice(at + insertion.text.length), insertion: { ...insertion, start: at, text } };
}

/** The body without the inserted text and the line breaks added around it (undo), or null once edited. */
export function removeWording(body: string, insertion: TInsertion): { body: string; caret: number } | null {
  const at = locateWording(body, insertion);
  if (at === null) return null;
  let from = at;
  let to = at + insertion.text.length;
  if (insertion.lead && body.slice(from - insertion.lead.length, from) === insertion.lead) from -= insertion.lead.length;
  if (insertion.trail && body.startsWith(insertion.trail, to)) to += insertion.trail.length;
  return { body: body.slice(0, from) + body.slice(to), caret: from };
}

/** What the firm's wording is filled with: a template's values, the client's names and the sender's. */
export type TWordingValues = TTemplateValues & { clientFirstName?: string; clientName?: string; myName?: string };

/** The name retention gives a client it erased (server/records/README.md "Records"): never a greeting's name. */
const ERASED_CLIENT_NAME = 'Erased client';

const NAMED: Record<string, keyof TWordingValues> = {
  'client.firstName': 'clientFirstName',
  'client.name': 'clientName',
  'me.name': 'myName',
};

/**
 * The wording's text with its placeholders filled: `{{client.firstName}}`, `{{client.name}}` and
 * `{{me.name}}` (Settings › Firm wording), and a template's (`{{case_reference}}`…: renderTemplate).
 * A name there is none of (an unlinked number, an erased client) leaves nothing, not a stand-in,
 * and is listed in `missing` so the composer can say so; the space it leaves before a comma goes too.
 */
export function fillWording(body: string, values: TWordingValues): { text: string; missing: string[] } {
  const missing: string[] = [];
  const erased = values.clientName?.trim() === ERASED_CLIENT_NAME;
  const named = body.replace(/(\s?)\{\{\s*(client\.firstName|client\.name|me\.name)\s*\}\}/g, (_match, space: string, key: string) => {
    const value = key.startsWith('client.') && erased ? '' : values[NAMED[key]!]?.trim();
    if (value) return space + value;
    if (!missing.includes(key)) missing.push(key);
    return space;
  });
  // "Hello , the hearing" → "Hello, the hearing": only where a name was left out.
  const tidy = missing.length ? named.replace(/ +([,.!?;:])/g, '$1').replace(/ {2,}/g, ' ') : named;
  const template = erased ? { ...values, client_name: undefined } : values;
  return { text: renderTemplate(tidy, template), missing };
}
