import type { TOutputs } from '../../lib/trpc';

// What a scheduled send is, as the lists show it (server/messaging/README.md "Scheduled sends").

/** One scheduled send, as `chat.scheduled` lists it: waiting, or recently not sent (with its reason). */
export type TScheduledSend = TOutputs['chat']['scheduled'][number];

/** Still to go, or not sent and waiting for its author to decide: what the lists show. */
export function isOpen(item: TScheduledSend): boolean {
  return item.state === 'scheduled' || item.state === 'not_sent';
}

/** Waiting first (soonest first), then those not sent (latest first). */
export function sortForList(items: TScheduledSend[]): TScheduledSend[] {
  const waiting = items.filter((i) => i.state === 'scheduled').sort((a, b) => a.sendAt.getTime() - b.sendAt.getTime());
  const notSent = items.filter((i) => i.state === 'not_sent').sort((a, b) => b.sendAt.getTime() - a.sendAt.getTime());
  return [...notSent, ...waiting];
}

const labelOf = (name: string) => name.replace(/_/g, ' ').replace(/^\w/, (c) => c.toUpperCase());

/** What it is, for its list: the text; "Template: Appointment reminder" and its values; "File: letter.pdf" and its caption. */
export function whatOf(item: TScheduledSend): { title: string | null; text: string | null } {
  if (item.kind === 'template' && item.template) {
    const values = item.template.params.filter((p) => p.trim());
    return { title: `Template: ${labelOf(item.template.name)}`, text: values.length ? `Values: ${values.join(' · ')}` : null };
  }
  if (item.kind === 'file') return { title: `File: ${item.fileName ?? 'a file'}`, text: item.body || null };
  return { title: null, text: item.body };
}

/** Whether its text (or a file's caption) may be edited: a template's values are not. */
export function hasEditableText(item: TScheduledSend): boolean {
  return item.kind === 'text' || item.kind === 'file';
}

/** After its time, a send is looked for this often until the list says it went (or did not)… */
const DUE_POLL_MS = 2_000;
/** …and, once it is this late (the senders are down, say), less often. */
const LATE_AFTER_MS = 2 * 60_000;
const LATE_POLL_MS = 30_000;
/** The longest wait between reads (a timer beyond ~24 days would fire at once; hours are plenty). */
const MAX_WAIT_MS = 60 * 60_000;

/**
 * How long until the list should be read again: just after the next send's time, then every
 * 2 s while one is due and not yet reported gone. false when nothing waits.
 */
export function nextReadIn(items: TScheduledSend[] | undefined, now: number): number | false {
  const waiting = (items ?? []).filter((i) => i.state === 'scheduled').map((i) => i.sendAt.getTime());
  if (!waiting.length) return false;
  const next = Math.min(...waiting);
  if (next > now) return Math.min(next - now + 1_000, MAX_WAIT_MS);
  return now - next > LATE_AFTER_MS ? LATE_POLL_MS : DUE_POLL_MS;
}
