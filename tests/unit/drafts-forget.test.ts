import { describe, expect, it } from 'vitest';
import { draftKeyOf, draftOwnerOf, forgetDrafts, saveDraft, type TDraftStorage } from '../../client/src/lib/drafts';

class MemoryStorage implements TDraftStorage {
  items = new Map<string, string>();
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
    this.items.set(key, value);
  }
  removeItem(key: string) {
    this.items.delete(key);
  }
}

const now = Date.parse('2026-11-24T10:00:00Z');

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

  it('storage that refuses, or none, breaks nothing', () => {
    const refusing: TDraftStorage = {
      length: 1,
      key: () => {
        throw new DOMException('denied', 'SecurityError');
      },
      getItem: () => null,
      setItem: () => undefined,
      removeItem: () => undefined,
    };
    expect(() => forgetDrafts(refusing)).not.toThrow();
    expect(() => forgetDrafts(null)).not.toThrow();
  });
});
