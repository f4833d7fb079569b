/** Runs `then` once, on the reader's own wheel, touch or key (or a press, with `pointerdown`) in `element`; returns the way to stop listening. */
export function onReaderInput(element: HTMLElement, types: readonly (keyof HTMLElementEventMap)[], then: () => void): () => void {
  const once = () => {
    stop();
    then();
  };
  const stop = () => {
    for (const type of types) element.removeEventListener(type, once);
  };
  for (const type of types) element.addEventListener(type, once, { passive: true });
  return stop;
}
