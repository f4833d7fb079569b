// The small readers and word-makers every audit sentence uses: a detail is untyped JSON from the trail.

export type TDetail = Record<string, unknown>;
export const text = (d: TDetail, key: string): string | null => (typeof d[key] === 'string' && d[key] !== '' ? d[key] : null);
export const count = (d: TDetail, key: string): number | null => (typeof d[key] === 'number' && Number.isFinite(d[key]) ? d[key] : null);
export const numberWords = new Intl.NumberFormat('en-GB');
/** "1 message", "1,234 messages". */
export const plural = (n: number, one: string, many = `${one}s`) => `${numberWords.format(n)} ${n === 1 ? one : many}`;
/** "a, b and c". */
export const listed = (parts: string[]) => (parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`);
