import { useCallback } from 'react';

/**
 * How much of the window the composer (with the reply window above it) takes from the bottom, as
 * `--composer-height` on the page: notices (toasts) sit above it instead of over the message box.
 */
export function useComposerHeight(): (element: HTMLElement | null) => (() => void) | undefined {
  return useCallback((element: HTMLElement | null) => {
    if (!element || typeof ResizeObserver === 'undefined') return;
    const root = document.documentElement;
    const measure = () =>
      root.style.setProperty('--composer-height', `${Math.max(0, window.innerHeight - element.getBoundingClientRect().top)}px`);
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    window.addEventListener('resize', measure);
    return () => {
      observer.disconnect();
      window.removeEventListener('resize', measure);
      root.style.removeProperty('--composer-height');
    };
  }, []);
}
