import type { ReactNode } from 'react';

/** What `useFormErrors().field(name)` gives an input (its id and error wiring), and its message under it. */
export type TFieldAttrs = {
  id: string;
  'aria-invalid'?: boolean;
  'aria-describedby'?: string;
  'data-field-warning'?: boolean;
};
export type TFieldMessage = ReactNode;
