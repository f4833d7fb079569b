import { expect } from 'vitest';

// Vitest's asymmetric matchers (expect.any and the rest), typed `unknown` instead of vitest's `any`.
// The `any` lets a matcher stand anywhere in an expected value, and hides that it is a matcher and not
// the value, so typescript-eslint reports every one that is the value of an object's property; `unknown`
// fits the same places. The tests use these everywhere, so one expected value never mixes the two.
export const match = {
  any: (type: unknown): unknown => expect.any(type),
  objectContaining: (expected: Record<string, unknown>): unknown => expect.objectContaining(expected),
  stringContaining: (expected: string): unknown => expect.stringContaining(expected),
  stringMatching: (expected: string | RegExp): unknown => expect.stringMatching(expected),
  arrayContaining: (expected: unknown[]): unknown => expect.arrayContaining(expected),
};
