import type { KeyboardEvent } from 'react';

/**
 * A small inline form's keydown handler: Escape cancels it, and goes no further (a menu or dialog
 * around it must not close too).
 */
export const escapeCancels =
  (cancel: () => void) =>
  (event: KeyboardEvent): void => {
    if (event.key !== 'Escape') return;
    event.preventDefault();
    event.stopPropagation();
    cancel();
  };
