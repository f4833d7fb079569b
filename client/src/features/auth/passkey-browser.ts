import { browserSupportsWebAuthn, startAuthentication, startRegistration, WebAuthnError } from '@simplewebauthn/browser';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/browser';
import { trpc } from '../../lib/trpc';

// The browser's side of passkeys (@simplewebauthn/browser): asking the device to make or use one,
// and saying plainly why it did not.

const UNSUPPORTED = 'This browser cannot use passkeys. Sign in with your password, or use another browser.';

/** A plain sentence for why the browser gave no passkey answer. */
export function passkeyProblem(error: unknown, doing: 'sign-in' | 'add'): string {
  if (error instanceof WebAuthnError && error.code === 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED') {
    return 'This device already has a passkey for your account.';
  }
  const name = error instanceof Error ? error.name : '';
  // The browser says no more than this when the person cancels, waits too long, or has no passkey here.
  if (name === 'NotAllowedError' || name === 'AbortError') {
    return doing === 'sign-in'
      ? 'No passkey was used: the request was cancelled or timed out, or this device has no passkey for Firm Chat.'
      : 'No passkey was made: the request was cancelled or timed out.';
  }
  if (name === 'SecurityError') return 'Passkeys cannot be used at this address. Open Firm Chat at its usual address.';
  return error instanceof Error && error.message ? error.message : 'The passkey did not work. Try again.';
}

/** The browser's answer to the server's sign-in options: for a passkey-only sign-in, or a second step. */
export function usePasskeyAssertion(): () => Promise<AuthenticationResponseJSON> {
  const utils = trpc.useUtils();
  return async () => {
    if (!browserSupportsWebAuthn()) throw new Error(UNSUPPORTED);
    const optionsJSON = await utils.client.auth.passkeys.signInOptions.mutate();
    return startAuthentication({ optionsJSON });
  };
}

/** A new passkey made by this device for the signed-in person, to hand to auth.passkeys.register. */
export function usePasskeyCreation(): () => Promise<RegistrationResponseJSON> {
  const utils = trpc.useUtils();
  return async () => {
    if (!browserSupportsWebAuthn()) throw new Error(UNSUPPORTED);
    const optionsJSON = await utils.client.auth.passkeys.registrationOptions.mutate();
    return startRegistration({ optionsJSON });
  };
}
