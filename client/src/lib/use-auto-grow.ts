import { useEffect, useLayoutEffect, type RefObject } from 'react';

/**
 * A textarea as tall as its text: it grows with every line up to its CSS max-height, then scrolls.
 * Measured again when the text changes and when the window's width rewraps it.
 */
export function useAutoGrow(ref: RefObject<HTMLTextAreaElement | null>, value: string): void {
  useLayoutEffect(() => {
    if (ref.current) fitHeight(ref.current);
  }, [ref, value]);
  useEffect(() => {
    const refit = () => ref.current && fitHeight(ref.current);
    window.addEventListener('resize', refit);
    return () => window.removeEventListener('resize', refit);
  }, [ref]);
}

function fitHeight(textarea: HTMLTextAreaElement): void {
  textarea.style.height = 'auto'; // shrink first, so deleted lines give their room back
  const borders = textarea.offsetHeight - textarea.clientHeight;
  textarea.style.height = `${textarea.scrollHeight + borders}px`;
}
