import { describe, expect, it } from 'vitest';
import { placeInPages } from '../../client/src/lib/paged-cache';

// Live changes into paged lists: a record goes where its time puts it among the loaded
// pages; one older than every loaded page while older pages exist waits for its page.
const at = (id: number, minute: number) => ({ id, createdAt: new Date(Date.UTC(2026, 0, 1, 0, minute)) });
const ids = (pages: { id: number }[][]) => pages.map((page) => page.map((x) => x.id));

describe('thread pages (newest page first, each oldest first)', () => {
  const pages = [
    [at(5, 50), at(6, 60)],
    [at(3, 30), at(4, 40)],
  ];
  it('a new message ends the newest page', () => {
    expect(ids(placeInPages(pages, at(7, 70), 'oldest-first', true))).toEqual([
      [5, 6, 7],
      [3, 4],
    ]);
  });
  it('a change to a loaded message replaces it where it is', () => {
    const changed = { ...at(3, 30), status: 'read' };
    const out = placeInPages(pages, changed, 'oldest-first', true);
    expect(ids(out)).toEqual([
      [5, 6],
      [3, 4],
    ]);
    expect(out[1]![0]).toBe(changed);
  });
  it('a receipt for a message on an unloaded page changes nothing', () => {
    expect(placeInPages(pages, at(1, 10), 'oldest-first', true)).toBe(pages);
  });
  it('with every page loaded, an older record (a relinked one) goes in its place', () => {
    expect(ids(placeInPages(pages, at(1, 10), 'oldest-first', false))).toEqual([
      [5, 6],
      [1, 3, 4],
    ]);
    expect(ids(placeInPages(pages, at(9, 45), 'oldest-first', true))).toEqual([
      [5, 6],
      [3, 4, 9],
    ]); // between two loaded pages
  });
  it('ties on time order by id, as the server does', () => {
    expect(ids(placeInPages([[at(5, 50), at(8, 50)]], { ...at(6, 50) }, 'oldest-first', false))).toEqual([[5, 6, 8]]);
  });
  it('an empty thread takes its first message', () => {
    expect(ids(placeInPages([[]], at(1, 10), 'oldest-first', false))).toEqual([[1]]);
  });
});

describe('timeline pages (newest first throughout)', () => {
  const pages = [
    [at(6, 60), at(5, 50)],
    [at(4, 40), at(3, 30)],
  ];
  it('a new record starts the first page; one between pages joins the later one', () => {
    expect(ids(placeInPages(pages, at(7, 70), 'newest-first', true))).toEqual([
      [7, 6, 5],
      [4, 3],
    ]);
    expect(ids(placeInPages(pages, at(9, 35), 'newest-first', true))).toEqual([
      [6, 5],
      [4, 9, 3],
    ]);
  });
  it('older than everything loaded: left for its page', () => {
    expect(placeInPages(pages, at(1, 10), 'newest-first', true)).toBe(pages);
    expect(ids(placeInPages(pages, at(1, 10), 'newest-first', false))).toEqual([
      [6, 5],
      [4, 3, 1],
    ]);
  });
});
