import { TRPCClientError } from '@trpc/client';
import { expect } from 'vitest';
import type { AppRouter } from '../../server/app/app-router';

/** The tRPC error a call ends with; the test fails if it succeeds or fails with anything else. */
export async function failureOf(promise: Promise<unknown>): Promise<TRPCClientError<AppRouter>> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TRPCClientError);
  return error as TRPCClientError<AppRouter>;
}
