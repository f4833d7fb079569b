import type { TRPC_ERROR_CODE_KEY } from '@trpc/server';

/** Every error the app raises on purpose, and the tRPC code the client sees for it. */
export const APP_ERROR_CODES = {
  UNAUTHORIZED: 'UNAUTHORIZED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  INVALID_INPUT: 'BAD_REQUEST',
  CONFLICT: 'CONFLICT',
  PRECONDITION_FAILED: 'PRECONDITION_FAILED',
  TOO_MANY_REQUESTS: 'TOO_MANY_REQUESTS',
  PROVIDER_ERROR: 'BAD_GATEWAY',
  SERVICE_UNAVAILABLE: 'SERVICE_UNAVAILABLE',
} as const satisfies Record<string, TRPC_ERROR_CODE_KEY>;

export type TAppErrorCode = keyof typeof APP_ERROR_CODES;

/**
 * What the SPA must do before the call can succeed (server/auth/README.md "Step-up and the firm's
 * policy"): `enrol` — set up a second factor first; `reauth` — prove it again, then repeat the call.
 */
export type TAppErrorHints = { enrol?: true; reauth?: true };

export class AppError extends Error {
  override name = 'AppError';
  constructor(
    readonly code: TAppErrorCode,
    message: string,
    readonly fieldErrors?: Record<string, string[]>,
    readonly hints?: TAppErrorHints,
  ) {
    super(message);
  }
}
