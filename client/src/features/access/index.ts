// What the rest of the SPA uses of ethical walls (server/access/README.md "Ethical walls"): a page's "no longer open
// to you", the walls' panels and marks.
export { AccessGone } from './access-gone';
export { AccessPanel } from './access-panel';
export { goneOf, retryUnlessNotFound, type TGone } from './gone';
export { LockMark } from './lock-mark';
export { PersonWalls } from './person-walls';
