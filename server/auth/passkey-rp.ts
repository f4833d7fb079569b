/** The relying party passkeys are made for and checked against: the site people open the app at. */
export type TPasskeyRp = { rpId: string; origin: string; rpName: string };

export const PASSKEY_RP_NAME = 'Firm Chat';

/**
 * The RP of a site URL: its host name is the RP id (WebAuthn refuses IP addresses there, so the app
 * is opened at a name such as localhost), its origin the only origin answers may come from.
 */
export function passkeyRpOf(siteUrl: string): TPasskeyRp {
  const url = new URL(siteUrl);
  return { rpId: url.hostname, origin: url.origin, rpName: PASSKEY_RP_NAME };
}
