import type { InfiniteData } from '@tanstack/react-query';

// Live changes applied to paged lists (React Query infinite data: page 0 is the newest page).
// A record goes where its time puts it among the loaded pages; one older than everything loaded,
// while older pages are still unloaded, is left for that page to bring (so a late receipt for an
// old message changes nothing visible, and the page shows it right when it loads).

// Two snapshots of one record can arrive in either order (a live change, a mutation's answer, for
// the same record): the one with the lower version (PostgreSQL adds one on every change) is older
// and never replaces the loaded one. Optimistic copies (negative ids, version 0) share no id with a stored record.
type TRecord = { id: number; createdAt: Date; version?: number };

/** > 0 when `a` is later than `b` (time, then id: the server's order). */
function compareTime(a: TRecord, b: TRecord): number {
  return a.createdAt.getTime() - b.createdAt.getTime() || a.id - b.id;
}

/** Where each page keeps its oldest record: threads list a page oldest first, timelines newest first. */
export type TPageOrder = 'oldest-first' | 'newest-first';

function insertSorted<T extends TRecord>(page: T[], item: T, order: TPageOrder): T[] {
  const at = page.findIndex((x) => (order === 'oldest-first' ? compareTime(x, item) > 0 : compareTime(item, x) > 0));
  return at < 0 ? [...page, item] : [...page.slice(0, at), item, ...page.slice(at)];
}

/** Whether `item` is an older snapshot of `loaded` (the same record, a lower version): it changes nothing then. */
export function isOlderSnapshot(item: TRecord, loaded: TRecord): boolean {
  return item.id === loaded.id && item.version !== undefined && loaded.version !== undefined && item.version < loaded.version;
}

/**
 * The pages with `item` replaced where it is loaded (unless it is an older snapshot of it: the
 * pages stay as they are), else placed by its time (see above).
 */
export function placeInPages<T extends TRecord>(pages: T[][], item: T, order: TPageOrder, hasOlder: boolean): T[][] {
  for (let p = 0; p < pages.length; p++) {
    const at = pages[p]!.findIndex((x) => x.id === item.id);
    if (at < 0) continue;
    if (isOlderSnapshot(item, pages[p]![at]!)) return pages;
    return pages.map((page, i) => (i === p ? page.map((x, j) => (j === at ? item : x)) : page));
  }
  for (let p = 0; p < pages.length; p++) {
    const page = pages[p]!;
    const oldest = order === 'oldest-first' ? page[0] : page[page.length - 1];
    if (oldest ? compareTime(item, oldest) >= 0 : p === 0) return pages.map((x, i) => (i === p ? insertSorted(x, item, order) : x));
  }
  if (hasOlder || pages.length === 0) return pages;
  const last = pages.length - 1;
  return pages.map((x, i) => (i === last ? insertSorted(x, item, order) : x));
}

/** Infinite data with every page's list passed through `change` (which sees them all at once). */
export function mapPages<TPage, TParam, T>(
  data: InfiniteData<TPage, TParam>,
  listOf: (page: TPage) => T[],
  withList: (page: TPage, list: T[]) => TPage,
  change: (lists: T[][]) => T[][],
): InfiniteData<TPage, TParam> {
  const lists = data.pages.map(listOf);
  const changed = change(lists);
  if (changed.every((list, i) => list === lists[i])) return data;
  return { ...data, pages: data.pages.map((page, i) => (changed[i] === lists[i] ? page : withList(page, changed[i]!))) };
}
