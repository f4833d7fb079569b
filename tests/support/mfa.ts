import { generate } from 'otplib';
import type { createHttpClient } from './test-server';

// Two-step sign-in from a test's side: a code computed from the secret the server handed out, as
// an authenticator app would show it at a given instant.

type TClient = ReturnType<typeof createHttpClient>['client'];

/** The 6-digit code for `at` (default: now), `steps` 30-second steps later. */
export const codeAt = (secret: string, at: Date = new Date(), steps = 0) =>
  generate({ secret, epoch: Math.floor(at.getTime() / 1000) + steps * 30 });

/** Sets up an authenticator app for the signed-in `client`, confirmed with a code `confirmStep` steps from `at`. */
export async function enrolTotp(
  client: TClient,
  at: Date = new Date(),
  confirmStep = -1,
): Promise<{ secret: string; recoveryCodes: string[] }> {
  const { secret } = await client.auth.mfa.startTotp.mutate();
  const { recoveryCodes } = await client.auth.mfa.confirmTotp.mutate({ code: await codeAt(secret, at, confirmStep) });
  return { secret, recoveryCodes };
}
