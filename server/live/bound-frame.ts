import type { TThreadItem } from '../inbox';

/** The most of one record's history (earlier texts) a live frame carries (server/README.md "Security and reliability"). */
export const MAX_FRAME_HISTORY_BYTES = 64 * 1024;

/**
 * The item as a live frame carries it: its earlier texts cut to the newest that fit in
 * MAX_FRAME_HISTORY_BYTES, the rest counted in `edits_dropped` — the thread itself (a query) has
 * them all. Every open inbox receives every frame, so one much-edited message must not cost each
 * of them a megabyte.
 */
export function boundItemHistory(item: TThreadItem): TThreadItem {
  const edits = item.metadata.edits;
  if (!edits?.length) return item;
  let bytes = 0;
  let keep = 0;
  for (let i = edits.length - 1; i >= 0; i--) {
    bytes += Buffer.byteLength(JSON.stringify(edits[i]));
    if (bytes > MAX_FRAME_HISTORY_BYTES) break;
    keep++;
  }
  if (keep === edits.length) return item;
  const dropped = (item.metadata.edits_dropped ?? 0) + edits.length - keep;
  return { ...item, metadata: { ...item.metadata, edits: edits.slice(edits.length - keep), edits_dropped: dropped } };
}
