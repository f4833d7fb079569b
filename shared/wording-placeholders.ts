// The placeholders the firm's wording may hold, filled in when it is inserted in the composer
// (server/wording/README.md "Firm wording"). Anything else between braces would reach a client as
// typed, so saving it is refused with a sentence naming it.

export const WORDING_PLACEHOLDERS = [
  'client.firstName',
  'client.name',
  'me.name',
  'case_reference',
  'case_title',
  'firm_name',
  'firm_phone',
] as const;

const DOUBLE = /\{\{\s*([^{}]*?)\s*\}\}/g;

/** The placeholders in `body` that are not among WORDING_PLACEHOLDERS, each once, as written. */
export function unknownPlaceholders(body: string): string[] {
  const known = new Set<string>(WORDING_PLACEHOLDERS);
  const found = [...body.matchAll(DOUBLE)].filter((m) => !known.has(m[1]!)).map((m) => m[0]);
  return [...new Set(found)];
}

/** What is wrong with the placeholders in `body`, as one sentence for its field; null when nothing is. */
export function placeholderProblem(body: string): string | null {
  const unknown = unknownPlaceholders(body);
  if (unknown.length)
    return `${unknown.join(', ')} ${unknown.length === 1 ? 'is not a placeholder' : 'are not placeholders'}: use those listed above, or write the words out`;
  // What is left once the whole placeholders are taken out: a lone pair of braces, or a known name in single ones.
  const rest = body.replace(DOUBLE, '');
  if (/\{\{|\}\}/.test(rest)) return 'A placeholder’s braces do not match: write it with two on each side, such as {{client.firstName}}';
  const single = [...rest.matchAll(/\{\s*([\w.]+)\s*\}/g)].find((m) => (WORDING_PLACEHOLDERS as readonly string[]).includes(m[1]!));
  if (single) return `${single[0]} needs two braces on each side: {{${single[1]}}}`;
  return null;
}
