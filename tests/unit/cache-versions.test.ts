import { QueryClient } from '@tanstack/react-query';
import { createTRPCClient } from '@trpc/client';
import { createTRPCQueryUtils } from '@trpc/react-query';
import { describe, expect, it } from 'vitest';
import type { AppRouter } from '../../server/app/app-router';
import { applyLiveItems, EVERY_THREAD, placeInThread, threadInputOf, type TUtils } from '../../client/src/lib/cache-patches';
import { placeInPages } from '../../client/src/lib/paged-cache';
import type { TThreadItem, TThreadSummary } from '../../client/src/lib/trpc';

// Two snapshots of one record can come in either order (a live change and a mutation's answer):
// the one with the lower version is older and leaves the loaded one as it is.
const at = (id: number, minute: number, version: number, status = 'sent') => ({
  id,
  createdAt: new Date(Date.UTC(2026, 0, 1, 0, minute)),
  version,
  status,
});

describe('placeInPages with versions', () => {
  const pages = [[at(5, 50, 1), at(6, 60, 3, 'read')], [at(4, 40, 1)]];

  it('keeps the loaded record when an older snapshot of it comes after a newer one; the same or a later version replaces it', () => {
    const out = placeInPages(pages, at(6, 60, 2, 'delivered'), 'oldest-first', true);
    expect(out).toBe(pages);
    expect(out[0]![1]).toMatchObject({ version: 3, status: 'read' });

    const same = at(6, 60, 3, 'read');
    expect(placeInPages(pages, same, 'oldest-first', true)[0]![1]).toBe(same);
    const later = at(6, 60, 4, 'failed');
    expect(placeInPages(pages, later, 'oldest-first', true)[0]![1]).toBe(later);
    // An optimistic copy (negative id, no stored version) is replaced as before.
    const copy = { id: -1, createdAt: new Date(Date.UTC(2026, 0, 1, 0, 70)), version: 0 };
    const replaced = { ...copy, body: 'again' };
    expect(placeInPages(placeInPages(pages, copy, 'oldest-first', false), replaced, 'oldest-first', false)[0]!.at(-1)).toBe(replaced);
  });
});

/** The app's cache patches over a real React Query cache; nothing here calls the server. */
function cacheUtils(): TUtils {
  const client = createTRPCClient<AppRouter>({ links: [] });
  return createTRPCQueryUtils<AppRouter>({ client, queryClient: new QueryClient() }) as unknown as TUtils;
}

const ITEM: TThreadItem = {
  id: 41,
  type: 'chat',
  direction: 'outbound',
  subject: null,
  body: 'Your hearing is at ten',
  status: 'sent',
  error: null,
  attachments: [],
  sentBy: { id: 7, name: 'Sam' },
  clientId: 1,
  caseId: null,
  peerPhone: '447700900123',
  firmNumberId: 1,
  metadata: {},
  providerTimestamp: null,
  readAt: null,
  createdAt: new Date('2026-11-24T10:00:00Z'),
  receipts: [],
  version: 1,
};

const SUMMARY = {
  key: 'client-1',
  last: {
    id: 41,
    body: ITEM.body,
    direction: 'outbound',
    status: 'sent',
    outcome: null,
    createdAt: ITEM.createdAt,
    kind: 'text',
    fileName: null,
  },
  unread: 0,
  lastInboundAt: null,
  overdue: false,
} as unknown as TThreadSummary;

function loadThread(utils: TUtils, items: TThreadItem[]): void {
  utils.inbox.thread.setInfiniteData(threadInputOf({ clientId: 1 }, false), {
    pages: [{ items, nextCursor: null }],
    pageParams: [null],
  });
}
const shown = (utils: TUtils) => utils.inbox.thread.getInfiniteData(threadInputOf({ clientId: 1 }, false))!.pages[0]!.items;

describe('cache patches with versions', () => {
  it('a mutation answer older than the live change already shown changes nothing', () => {
    const utils = cacheUtils();
    loadThread(utils, [{ ...ITEM, status: 'read', version: 3 }]);
    placeInThread(utils, { clientId: 1 }, { ...ITEM, status: 'delivered', version: 2 });
    expect(shown(utils)).toMatchObject([{ id: 41, status: 'read', version: 3 }]);
  });

  it('an older live snapshot changes neither the thread nor the inbox line', () => {
    const utils = cacheUtils();
    loadThread(utils, [{ ...ITEM, status: 'read', version: 3 }]);
    utils.inbox.threads.setInfiniteData(EVERY_THREAD, {
      pages: [{ threads: [{ ...SUMMARY, last: { ...SUMMARY.last, status: 'read' } }], nextCursor: null }] as never,
      pageParams: [null],
    });
    applyLiveItems(utils, [{ ...ITEM, status: 'delivered', version: 2 }]);
    expect(shown(utils)).toMatchObject([{ status: 'read', version: 3 }]);
    expect(utils.inbox.threads.getInfiniteData(EVERY_THREAD)!.pages[0]!.threads[0]!.last.status).toBe('read');

    applyLiveItems(utils, [{ ...ITEM, status: 'failed', version: 4 }]);
    expect(shown(utils)).toMatchObject([{ status: 'failed', version: 4 }]);
    expect(utils.inbox.threads.getInfiniteData(EVERY_THREAD)!.pages[0]!.threads[0]!.last.status).toBe('failed');
  });

  it('an older snapshot from before an unlink does not take the record out of its number’s thread', () => {
    const utils = cacheUtils();
    const unlinked = { ...ITEM, clientId: null, version: 5 };
    utils.inbox.thread.setInfiniteData(threadInputOf({ phone: ITEM.peerPhone! }, false), {
      pages: [{ items: [unlinked], nextCursor: null }],
      pageParams: [null],
    });
    applyLiveItems(utils, [{ ...ITEM, version: 4 }]);
    const phoneThread = utils.inbox.thread.getInfiniteData(threadInputOf({ phone: ITEM.peerPhone! }, false))!;
    expect(phoneThread.pages[0]!.items).toMatchObject([{ id: 41, clientId: null, version: 5 }]);
  });
});
