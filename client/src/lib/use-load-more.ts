import { useEffect, useEffectEvent, useRef } from 'react';

/**
 * A ref for an element at the loading end of a list: when it scrolls into view (or near it), `load`
 * runs — once per appearance, and never while a page is already on its way.
 */
export function useLoadMore<T extends Element>(load: () => void, enabled: boolean) {
  const ref = useRef<T>(null);
  const onVisible = useEffectEvent(load);
  useEffect(() => {
    const element = ref.current;
    if (!element || !enabled) return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting)) onVisible();
      },
      { rootMargin: '300px 0px' },
    );
    observer.observe(element);
    return () => observer.disconnect();
  }, [enabled]);
  return ref;
}
