import { useLayoutEffect, type RefObject } from 'react';

/** The least room left between a popup and the window's side. */
const MARGIN_PX = 8;

/**
 * Moves a popup placed against its button (a menu, a date picker) sideways, as far as it needs to,
 * for all of it to be in the window: a button lined up at one edge of a wide screen may sit at the
 * other edge once a phone wraps its row. Checked again as the popup's content loads and as the
 * window is resized; before it is painted, so it never shows cut off first.
 */
export function useKeepInView(ref: RefObject<HTMLElement | null>, shown: boolean): void {
  useLayoutEffect(() => {
    const popup = ref.current;
    if (!shown || !popup) return;
    const fit = () => {
      popup.style.translate = '';
      const { left, right } = popup.getBoundingClientRect();
      const width = document.documentElement.clientWidth;
      // The start wins when it is wider than the window: its first words are what is read first.
      const shift =
        left < MARGIN_PX ? MARGIN_PX - left : right > width - MARGIN_PX ? Math.max(width - MARGIN_PX - right, MARGIN_PX - left) : 0;
      if (shift) popup.style.translate = `${Math.round(shift)}px 0`;
    };
    fit();
    const resized = new ResizeObserver(fit);
    resized.observe(popup);
    window.addEventListener('resize', fit);
    return () => {
      resized.disconnect();
      window.removeEventListener('resize', fit);
    };
  }, [ref, shown]);
}
