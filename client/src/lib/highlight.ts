/** Scrolls to the record `[data-id=id]` inside `container` and marks it for a moment (a reply's quoted message). */
export function highlightIn(container: HTMLElement | null, id: number): void {
  const target = container?.querySelector<HTMLElement>(`[data-id="${id}"]`);
  if (!target) return;
  const still = window.matchMedia('(prefers-reduced-motion: reduce)').matches;
  target.scrollIntoView({ block: 'center', behavior: still ? 'auto' : 'smooth' });
  // Keyboard and screen-reader users land on it too.
  if (!target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1');
  target.focus({ preventScroll: true });
  target.classList.remove('highlight');
  void target.offsetWidth; // restarts the mark when the same message is shown twice in a row
  target.classList.add('highlight');
  setTimeout(() => target.classList.remove('highlight'), 2000);
}
