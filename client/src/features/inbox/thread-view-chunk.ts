// The chunk the first conversation opened loads (inbox-page.tsx): it starts here, not at the
// conversation's index.ts, which the clients' pages import for a message's parts — an index.ts that
// was a chunk's entry would bring that whole chunk (the composer and all) along with them.
export { ThreadView } from '../conversation';
