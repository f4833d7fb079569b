import { describe, expect, it } from 'vitest';
import {
  DRAFT_MAX_AGE_MS,
  draftKeyOf,
  draftOwnerOf,
  forgetDrafts,
  readDraft,
  saveDraft,
  type TDraftStorage,
} from '../../client/src/features/composer/drafts';

/** Web Storage in memory; `quota` (characters of values) makes setItem throw as a full browser store does. */
class MemoryStorage implements TDraftStorage {
  items = new Map<string, string>();
  constructor(private quota = Infinity) {}
  get length() {
    return this.items.size;
  }
  key(i: number) {
    return [...this.items.keys()][i] ?? null;
  }
  getItem(key: string) {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string) {
    const used = [...this.items].filter(([k]) => k !== key).reduce((n, [, v]) => n + v.length, 0);
    if (used + value.length > this.quota) throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
    this.items.set(key, value);
  }
  removeItem(key: string) {
    this.items.delete(key);
  }
}

const refusing: TDraftStorage = {
  length: 0,
  key: () => null,
  getItem: () => {
    throw new DOMException('denied', 'SecurityError');
  },
  setItem: () => {
    throw new DOMException('denied', 'SecurityError');
  },
  removeItem: () => {
    throw new DOMException('denied', 'SecurityError');
  },
};

const now = Date.parse('2026-11-22T10:00:00Z');

describe('drafts kept per person and conversation', () => {
  it('a draft saved for one conversation is read back for it, and not for another conversation or another person', () => {
    const storage = new MemoryStorage();
    expect(saveDraft(storage, draftKeyOf(7, 'client-1'), 'Dear Amelia,\nthe bundle', now)).toBe(true);
    expect(readDraft(storage, draftKeyOf(7, 'client-1'), now)).toBe('Dear Amelia,\nthe bundle');
    expect(readDraft(storage, draftKeyOf(7, 'client-2'), now)).toBe('');
    expect(readDraft(storage, draftKeyOf(8, 'client-1'), now)).toBe('');
    expect(draftKeyOf(7, 'phone-447700900888')).toMatch(/^firm-chat:draft:v1:7:phone-447700900888$/);
  });

  it('an emptied draft (the message was sent) is removed from storage', () => {
    const storage = new MemoryStorage();
    saveDraft(storage, draftKeyOf(7, 'client-1'), 'Hello', now);
    expect(saveDraft(storage, draftKeyOf(7, 'client-1'), '  \n', now)).toBe(true);
    expect(storage.length).toBe(0);
  });

  it('a draft older than its keeping time is forgotten', () => {
    const storage = new MemoryStorage();
    saveDraft(storage, draftKeyOf(7, 'client-1'), 'Old news', now);
    expect(readDraft(storage, draftKeyOf(7, 'client-1'), now + DRAFT_MAX_AGE_MS - 1)).toBe('Old news');
    expect(readDraft(storage, draftKeyOf(7, 'client-1'), now + DRAFT_MAX_AGE_MS + 1)).toBe('');
    expect(storage.length).toBe(0);
  });

  it('a full storage makes room by dropping the oldest other drafts, and says so when it still cannot keep it', () => {
    const storage = new MemoryStorage(200);
    saveDraft(storage, draftKeyOf(7, 'client-1'), 'a'.repeat(60), now);
    saveDraft(storage, draftKeyOf(7, 'client-2'), 'b'.repeat(60), now + 1);
    expect(saveDraft(storage, draftKeyOf(7, 'client-3'), 'c'.repeat(60), now + 2)).toBe(true);
    expect(readDraft(storage, draftKeyOf(7, 'client-1'), now + 3)).toBe(''); // the oldest made room
    expect(readDraft(storage, draftKeyOf(7, 'client-2'), now + 3)).toBe('b'.repeat(60));
    expect(readDraft(storage, draftKeyOf(7, 'client-3'), now + 3)).toBe('c'.repeat(60));
    expect(saveDraft(storage, draftKeyOf(7, 'client-4'), 'd'.repeat(500), now + 4)).toBe(false);
  });

  it('storage that refuses every call, or is missing, loses the draft quietly instead of breaking the composer', () => {
    expect(readDraft(refusing, draftKeyOf(7, 'client-1'), now)).toBe('');
    expect(saveDraft(refusing, draftKeyOf(7, 'client-1'), 'Hello', now)).toBe(false);
    expect(readDraft(null, draftKeyOf(7, 'client-1'), now)).toBe('');
    expect(saveDraft(null, draftKeyOf(7, 'client-1'), 'Hello', now)).toBe(false);
    expect(saveDraft(null, draftKeyOf(7, 'client-1'), '', now)).toBe(true);
  });

  it('a damaged or foreign value under a draft key reads as no draft', () => {
    const storage = new MemoryStorage();
    storage.setItem(draftKeyOf(7, 'client-1'), '{not json');
    storage.setItem(draftKeyOf(7, 'client-2'), JSON.stringify({ text: 42 }));
    expect(readDraft(storage, draftKeyOf(7, 'client-1'), now)).toBe('');
    expect(readDraft(storage, draftKeyOf(7, 'client-2'), now)).toBe('');
  });
});

describe('drafts removed when their session ends', () => {
  it('every draft goes at sign-out; what is not a draft stays', () => {
    const storage = new MemoryStorage();
    saveDraft(storage, draftKeyOf(7, 'client-1'), 'Dear Amelia', now);
    saveDraft(storage, `${draftKeyOf(7, 'client-1')}:file`, '{"name":"lease.pdf","size":12}', now);
    saveDraft(storage, draftKeyOf(8, 'phone-447700900999'), 'Hello', now);
    storage.setItem('tus::firm-chat/document/lease.pdf', '{}');
    forgetDrafts(storage);
    expect([...storage.items.keys()]).toEqual(['tus::firm-chat/document/lease.pdf']);
  });

  it("another person's drafts go when someone else signs in, the person's own stay", () => {
    const storage = new MemoryStorage();
    saveDraft(storage, draftKeyOf(7, 'client-1'), 'Mine', now);
    saveDraft(storage, draftKeyOf(8, 'client-1'), 'Theirs', now);
    forgetDrafts(storage, 7);
    expect([...storage.items.keys()]).toEqual([draftKeyOf(7, 'client-1')]);
  });

  it('reads whose a draft key is', () => {
    expect(draftOwnerOf(draftKeyOf(7, 'client-1'))).toBe(7);
    expect(draftOwnerOf('firm-chat:session-ended')).toBeNull();
  });

  it('storage that refuses to list its keys, or none, breaks nothing', () => {
    const unlisting: TDraftStorage = {
      length: 1,
      key: () => {
        throw new DOMException('denied', 'SecurityError');
      },
      getItem: () => null,
      setItem: () => undefined,
      removeItem: () => undefined,
    };
    expect(() => forgetDrafts(unlisting)).not.toThrow();
    expect(() => forgetDrafts(null)).not.toThrow();
  });
});
