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
