/**
 * The sentence in a plain HTTP route's error answer (`{error: {code, message}}`, the server's one
 * error shape beside tRPC's), or null when the answer is not one.
 */
export function readHttpErrorMessage(body: unknown): string | null {
  const error = (body as { error?: { message?: unknown } } | null)?.error;
  return typeof error?.message === 'string' ? error.message : null;
}
