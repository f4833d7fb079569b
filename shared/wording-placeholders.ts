// The placeholders the firm's wording may hold, filled in when it is inserted in the composer
// (server/wording/README.md "Firm wording"). Anything else between double braces would reach a client
// as typed, so saving it is refused, naming it.

export const WORDING_PLACEHOLDERS = [
  'client.firstName',
  'client.name',
  'me.name',
  'case_reference',
  'case_title',
  'firm_name',
  'firm_phone',
] as const;

/** The placeholders in `body` that are not among WORDING_PLACEHOLDERS, each once, as written. */
export function unknownPlaceholders(body: string): string[] {
  const known = new Set<string>(WORDING_PLACEHOLDERS);
  const found = [...body.matchAll(/\{\{\s*([^{}]*?)\s*\}\}/g)].filter((m) => !known.has(m[1]!)).map((m) => m[0]);
  return [...new Set(found)];
}
