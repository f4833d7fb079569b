import type { TAuditItem } from './audit-actions';

// The database writes its own entry for every change to what protects the records (server/records/README.md
// "Records"), the app's changes too, naming the app's event of the same transaction. Beside that event
// the entry is a line under it, not a second row; an entry whose event is not on the page (or that
// names none: a change that went around the app) stays a row of its own.

export type TFoldedEvent = { event: TAuditItem; confirmations: TAuditItem[] };

const appEventIdOf = (item: TAuditItem) =>
  item.action === 'db.change' && typeof item.detail.appEventId === 'number' ? item.detail.appEventId : null;

/** The page's events, each database entry folded under the app event it names when that event is shown. */
export function foldConfirmations(items: TAuditItem[]): TFoldedEvent[] {
  const shown = new Set(items.map((item) => item.id));
  const confirmations = new Map<number, TAuditItem[]>();
  for (const item of items) {
    const appEvent = appEventIdOf(item);
    if (appEvent !== null && shown.has(appEvent)) confirmations.set(appEvent, [...(confirmations.get(appEvent) ?? []), item]);
  }
  return items
    .filter((item) => {
      const appEvent = appEventIdOf(item);
      return appEvent === null || !shown.has(appEvent);
    })
    .map((event) => ({ event, confirmations: confirmations.get(event.id) ?? [] }));
}

const VERB: Record<string, string> = { insert: 'added', update: 'changed', delete: 'deleted' };

/** The database's entries for an app event: which rows of which table changed, and which columns. */
export function DatabaseConfirmations({ confirmations }: { confirmations: TAuditItem[] }) {
  if (confirmations.length === 0) return null;
  return (
    <ul className="audit-confirmations muted" aria-label="The database’s own entries for this event">
      {confirmations.map((entry) => {
        const { table, op, changed } = entry.detail as { table?: string; op?: string; changed?: string[] };
        const columns = op === 'update' && changed?.length ? `: ${changed.join(', ')}` : '';
        return (
          <li key={entry.id} data-event={entry.id}>
            Recorded by the database (#{entry.id}): a row of {table} {VERB[op ?? ''] ?? 'changed'}
            {columns}
          </li>
        );
      })}
    </ul>
  );
}
