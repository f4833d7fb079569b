/**
 * Scrolls `container` when it is the scroller (only it: the page around it stays where it is, so the message never ends up
 * under a composer or off a phone's screen) to the record `[data-id=id]`, focuses it and marks it
 * until the reader moves on (a click, a key, scrolling) — a mark on a timer was gone before a
 * reader had found it.
 */
export function highlightIn(container: HTMLElement | null, id: number): void {
  const target = container?.querySelector<HTMLElement>(`[data-id="${id}"]`);
  if (!container || !target) return;
  const still = window.matchMedia('(prefers-reduced-motion: reduce)').matches;
  const behavior = still ? 'auto' : 'smooth';
  if (container.scrollHeight > container.clientHeight) {
    const offset = target.getBoundingClientRect().top - container.getBoundingClientRect().top;
    container.scrollTo({ top: container.scrollTop + offset - Math.max(0, (container.clientHeight - target.offsetHeight) / 2), behavior });
  } else {
    target.scrollIntoView({ block: 'center', behavior }); // a list in the page (a timeline): the page scrolls
  }
  // Keyboard and screen-reader users land on it too.
  if (!target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1');
  target.focus({ preventScroll: true });
  target.classList.remove('highlight');
  void target.offsetWidth; // restarts the mark when the same message is shown twice in a row
  target.classList.add('highlight');
  const events = ['pointerdown', 'keydown', 'wheel', 'touchstart'] as const;
  const unmark = () => {
    target.classList.remove('highlight');
    for (const type of events) container.removeEventListener(type, unmark);
  };
  // Listening from the next frame: the click or key that asked for the message does not end its mark.
  requestAnimationFrame(() => {
    for (const type of events) container.addEventListener(type, unmark, { passive: true });
  });
}
