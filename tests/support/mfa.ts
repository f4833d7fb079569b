import { generate } from 'otplib';
import type { createHttpClient } from './test-server';

// Two-step sign-in from a test's side: a code computed from the secret the server handed out, as
// an authenticator app would show it at a given instant.

type TClient = ReturnType<typeof createHttpClient>['client'];

/** How long an authenticator app shows each code (the server's TOTP period). */
const STEP_SECONDS = 30;

/** The 6-digit code for `at` (default: now), `steps` 30-second steps later. */
export const codeAt = (secret: string, at: Date = new Date(), steps = 0) =>
  generate({ secret, epoch: Math.floor(at.getTime() / 1000) + steps * STEP_SECONDS });

const stepOf = (at: Date) => Math.floor(at.getTime() / 1000 / STEP_SECONDS);

/**
 * Sets up an authenticator app for the signed-in `client`, confirmed with a code `confirmStep` steps
 * from `at` (default: the real clock once the seed is handed out).
 */
export async function enrolTotp(client: TClient, at?: Date, confirmStep = -1): Promise<{ secret: string; recoveryCodes: string[] }> {
  const { secret } = await client.auth.mfa.startTotp.mutate();
  const confirm = async (when: Date) =>
    (await client.auth.mfa.confirmTotp.mutate({ code: await codeAt(secret, when, confirmStep) })).recoveryCodes;
  if (at) return { secret, recoveryCodes: await confirm(at) };
  const now = new Date();
  try {
    return { secret, recoveryCodes: await confirm(now) };
  } catch (error) {
    // On the real clock the 30-second step can turn while the code is on its way (the step before
    // is then two behind): as a person would, enter the code shown now. Any other refusal stands.
    if (stepOf(new Date()) === stepOf(now)) throw error;
    return { secret, recoveryCodes: await confirm(new Date()) };
  }
}
