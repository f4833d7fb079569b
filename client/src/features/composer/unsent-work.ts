import { useEffect, useSyncExternalStore } from 'react';
import { forgetQueuedSends, useUnsentCount } from './outbox';
import { forgetShownDrafts } from './use-draft';
import { forgetResumableUploads } from './upload-file';

// Work a person would lose by leaving the page: sends not yet answered (outbox.ts) and files still
// uploading (a file lives in the page's memory only). Leaving with either asks first.

const uploads = new Map<string, string>();
const listeners = new Set<() => void>();
let uploadCount = 0;
/** Signing out: the page goes on purpose, with nothing left to ask about. */
let leaving = false;

function notify(): void {
  uploadCount = uploads.size;
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Notes a file uploading for the composer under `draftKey`; the returned function notes its end. */
export function noteUploadStarted(draftKey: string, fileName: string): () => void {
  uploads.set(draftKey, fileName);
  notify();
  return () => {
    if (uploads.get(draftKey) !== fileName) return;
    uploads.delete(draftKey);
    notify();
  };
}

/** Whether a file is still uploading in this page for the composer under `draftKey`. */
export function useUploading(draftKey: string): boolean {
  return useSyncExternalStore(subscribe, () => uploads.has(draftKey));
}

/** Asks before the page is left (closed, reloaded, navigated away) while work would be lost. */
export function useLeaveGuard(): number {
  const queued = useUnsentCount();
  const uploading = useSyncExternalStore(subscribe, () => uploadCount);
  const unsent = queued + uploading;
  useEffect(() => {
    if (!unsent) return;
    const ask = (event: BeforeUnloadEvent) => {
      if (leaving) return;
      event.preventDefault();
      event.returnValue = ''; // older browsers ask only when this is set
    };
    window.addEventListener('beforeunload', ask);
    return () => window.removeEventListener('beforeunload', ask);
  }, [unsent]);
  return unsent;
}

/**
 * Drafts and queued sends removed from this browser: at sign-out and when the session ends, what a
 * person typed must not stay for the next one (nor go out later under their name).
 */
export async function forgetUnsentWork(options: { leaving?: boolean } = {}): Promise<void> {
  if (options.leaving) leaving = true;
  forgetShownDrafts();
  // An unfinished upload's address names its file: it goes with the session too.
  forgetResumableUploads();
  await forgetQueuedSends();
}
