import type { Writable } from 'node:stream';
import type { TMediaStore } from '../media';
import type { TExportHeader, TExportMessage, TExportSnapshot } from './read-export';

/** What a writer may use besides the first pass of messages: the snapshot again, and the files' bytes (photos in the PDF). */
export type TExportContext = { snapshot: TExportSnapshot; store: TMediaStore };

/** Writes one format of an export to `out` from the pages of one snapshot. */
export type TWriteExport = (
  header: TExportHeader,
  pages: AsyncIterable<TExportMessage[]>,
  out: Writable,
  context: TExportContext,
) => Promise<void>;
