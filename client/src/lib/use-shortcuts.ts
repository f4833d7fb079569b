import { useEffect, useEffectEvent } from 'react';

/** Keys that act while the person is not typing: the key as `KeyboardEvent.key`, and what it does. */
export type TShortcuts = Record<string, () => void>;

function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

/**
 * Single-key shortcuts for the page (as mail clients have them), off while a field has the focus
 * (Escape leaves it) and when a modifier is held, so typing and the browser's own shortcuts are
 * never taken.
 */
export function useShortcuts(shortcuts: TShortcuts): void {
  const actionFor = useEffectEvent((key: string) => shortcuts[key]);
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      // Escape leaves a field (the message box, the search), so the keys act again.
      if (event.key === 'Escape' && isTyping(event.target) && !event.defaultPrevented) {
        (event.target as HTMLElement).blur();
        return;
      }
      if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented || isTyping(event.target)) return;
      const action = actionFor(event.key);
      if (!action) return;
      event.preventDefault();
      action();
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, []);
}
