// What a destruction certificate says in words a person reads (server/records/README.md "Records"): times on the
// firm's clock with the zone named, and counts with their nouns in the singular or the plural.

/** "1 record", "2 records"; with the number written the en-GB way ("1,200 records"). */
export function countOf(n: number, singular: string, plural = `${singular}s`): string {
  return `${n.toLocaleString('en-GB')} ${n === 1 ? singular : plural}`;
}

/** A size as a person reads it: "0 bytes", "1 byte", "3.4 kB", "12 MB". */
export function sizeOf(bytes: number): string {
  if (bytes < 1000) return countOf(bytes, 'byte');
  const units = ['kB', 'MB', 'GB', 'TB'];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${value.toLocaleString('en-GB', { maximumFractionDigits: value < 10 ? 1 : 0 })} ${units[unit]}`;
}

/** "2 records, 1 file (3.4 kB), 1 case and 1 client", leaving out what there was none of; "nothing" when all are none. */
export function erasedInWords(t: { records: number; files: number; bytes: number; cases: number; clients: number }): string {
  const parts = [
    t.records ? countOf(t.records, 'record') : null,
    t.files ? `${countOf(t.files, 'file')} (${sizeOf(t.bytes)})` : null,
    t.cases ? countOf(t.cases, 'case') : null,
    t.clients ? countOf(t.clients, 'client') : null,
  ].filter((part): part is string => part !== null);
  if (parts.length === 0) return 'nothing';
  return parts.length === 1 ? parts[0]! : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

/** "3 March 2026 at 14:05 GMT (Europe/London)": a time on the firm's clock, its zone named; '—' for none. */
export function firmTimeInWords(date: Date | null, zone: string): string {
  if (!date) return '—';
  const text = new Intl.DateTimeFormat('en-GB', {
    timeZone: zone,
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'short',
  }).format(date);
  return `${text} (${zone})`;
}
