import { expect, it } from 'vitest';

it('canary: this unit test fails on purpose', () => {
  expect(1 + 1, 'deliberate canary failure').toBe(3);
});
