import { useCallback, useSyncExternalStore } from 'react';
import { browserDraftStorage, forgetDrafts, readDraft, saveDraft } from './drafts';

type TSetText = (next: string | ((current: string) => string)) => void;
type TDraftState = { text: string; kept: boolean };

// What is on screen for each draft key. Storage is where a draft is kept, but it may refuse (full,
// off): the text typed must stay on screen all the same, so this copy in memory is what is shown.
const shown = new Map<string, TDraftState>();
const listeners = new Map<string, Set<() => void>>();

function notify(key: string): void {
  for (const listener of listeners.get(key) ?? []) listener();
}

function stateOf(key: string): TDraftState {
  let state = shown.get(key);
  if (!state) {
    state = { text: readDraft(browserDraftStorage(), key, Date.now()), kept: true };
    shown.set(key, state);
  }
  return state;
}

// Another tab of the same person changed a draft: this one shows it too.
if (typeof window !== 'undefined') {
  window.addEventListener('storage', (event) => {
    const keys = event.key === null ? [...shown.keys()] : [event.key];
    for (const key of keys) {
      if (!shown.delete(key)) continue;
      notify(key);
    }
  });
}

function subscribeTo(key: string, listener: () => void): () => void {
  const set = listeners.get(key) ?? new Set();
  set.add(listener);
  listeners.set(key, set);
  return () => {
    set.delete(listener);
    if (!set.size) listeners.delete(key);
  };
}

/**
 * Changes the draft under `key`, whether or not a composer shows it (a send refused after the
 * person moved on puts its text back into its own conversation's draft).
 */
export function writeDraft(key: string, next: string | ((current: string) => string)): void {
  const text = typeof next === 'function' ? next(stateOf(key).text) : next;
  const kept = saveDraft(browserDraftStorage(), key, text, Date.now());
  shown.set(key, { text, kept });
  notify(key);
}

/** Every draft removed (sign-out, a session that ended), or every draft but one person's. */
export function forgetShownDrafts(keepOwner?: number): void {
  forgetDrafts(browserDraftStorage(), keepOwner);
  const keys = [...shown.keys()];
  shown.clear();
  for (const key of keys) notify(key);
}

/**
 * The text of a composer, kept as the draft under `key` on every change (restored when the same
 * conversation opens again, removed when it becomes empty). `kept` is false when storage refused it.
 */
export function useDraft(key: string): { text: string; setText: TSetText; kept: boolean } {
  const subscribe = useCallback((listener: () => void) => subscribeTo(key, listener), [key]);
  const state = useSyncExternalStore(
    subscribe,
    () => stateOf(key),
    () => stateOf(key),
  );
  // Bound to its key: a send that finishes after the conversation changed updates the draft it began in.
  const setText = useCallback<TSetText>((next) => writeDraft(key, next), [key]);
  return { text: state.text, setText, kept: state.kept };
}
