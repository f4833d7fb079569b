// Unsent text, one draft per person and conversation, kept in the browser so that switching
// conversation or reloading loses nothing. Storage can be full, off or refused (private windows,
// policies): every call tolerates that and says whether the draft was kept.

/** The part of the Web Storage API drafts use (window.localStorage, or a stand-in in tests). */
export type TDraftStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem' | 'key' | 'length'>;

const PREFIX = 'firm-chat:draft:v1:';
/** A draft untouched this long is forgotten (its conversation has most likely moved on). */
export const DRAFT_MAX_AGE_MS = 30 * 24 * 3_600_000;

type TStored = { text: string; savedAt: number };

/** Drafts belong to the person signed in: another person at the same browser never sees them. */
export function draftKeyOf(userId: number, threadKey: string): string {
  return `${PREFIX}${userId}:${threadKey}`;
}

/** window.localStorage, or null where the browser refuses it (reading the property can throw). */
export function browserDraftStorage(): TDraftStorage | null {
  try {
    return typeof window === 'undefined' ? null : window.localStorage;
  } catch {
    return null;
  }
}

function parseStored(raw: string | null): TStored | null {
  if (!raw) return null;
  try {
    const value: unknown = JSON.parse(raw);
    if (value && typeof value === 'object' && typeof (value as TStored).text === 'string' && typeof (value as TStored).savedAt === 'number')
      return value as TStored;
  } catch {
    // not ours, or damaged: treated as no draft
  }
  return null;
}

/** The draft kept under `key`, or '' (none, expired, unreadable, or storage refused). */
export function readDraft(storage: TDraftStorage | null, key: string, now: number): string {
  if (!storage) return '';
  try {
    const stored = parseStored(storage.getItem(key));
    if (!stored) return '';
    if (now - stored.savedAt > DRAFT_MAX_AGE_MS) {
      storage.removeItem(key);
      return '';
    }
    return stored.text;
  } catch {
    return '';
  }
}

/** Every draft key with its save time, oldest first. */
function listDrafts(storage: TDraftStorage): { key: string; savedAt: number }[] {
  const found: { key: string; savedAt: number }[] = [];
  for (let i = 0; i < storage.length; i++) {
    const key = storage.key(i);
    if (key?.startsWith(PREFIX)) found.push({ key, savedAt: parseStored(storage.getItem(key))?.savedAt ?? 0 });
  }
  return found.sort((a, b) => a.savedAt - b.savedAt);
}

/**
 * Keeps `text` as the draft under `key` ('' or only spaces removes it). When storage is full, the
 * oldest other drafts make room, one at a time. False when the draft could not be kept.
 */
export function saveDraft(storage: TDraftStorage | null, key: string, text: string, now: number): boolean {
  if (!storage) return !text.trim();
  try {
    if (!text.trim()) {
      storage.removeItem(key);
      return true;
    }
    const value = JSON.stringify({ text, savedAt: now } satisfies TStored);
    try {
      storage.setItem(key, value);
      return true;
    } catch {
      for (const older of listDrafts(storage).filter((d) => d.key !== key)) {
        storage.removeItem(older.key);
        try {
          storage.setItem(key, value);
          return true;
        } catch {
          // still full: make more room
        }
      }
      return false;
    }
  } catch {
    return false;
  }
}

/** The person a draft key belongs to (null: not a draft key). */
export function draftOwnerOf(key: string): number | null {
  if (!key.startsWith(PREFIX)) return null;
  const owner = Number(key.slice(PREFIX.length).split(':')[0]);
  return Number.isInteger(owner) ? owner : null;
}

/**
 * Removes every draft in this browser, or (with `keepOwner`) every draft but that person's: what a
 * person typed does not outlive their session here, and is never shown to the next person.
 */
export function forgetDrafts(storage: TDraftStorage | null, keepOwner?: number): void {
  if (!storage) return;
  try {
    const keys: string[] = [];
    for (let i = 0; i < storage.length; i++) {
      const key = storage.key(i);
      const owner = key ? draftOwnerOf(key) : null;
      if (key && owner !== null && owner !== keepOwner) keys.push(key);
      else if (key?.startsWith(PREFIX) && owner === null) keys.push(key);
    }
    for (const key of keys) storage.removeItem(key);
  } catch {
    // storage refused: nothing of ours could have been kept in it either
  }
}
