import { randomBytes } from 'node:crypto';
import { hasHiddenCharacters } from '../../../shared/visible-text';
import { SYSTEM_ACTOR } from '../../audit';
import type { TOidcConfig } from '../../core/config';
import { User } from '../../core/db/models/index';
import { createUser } from '../users';

// Who a provider's answer signs in (server/auth/README.md "Single sign-on"): the active person whose email
// the provider verified. Roles never come from the provider; an account is made (staff) only when
// OIDC_CREATE_ACCOUNTS=staff says so.

/** Why an answer signs nobody in: the `sso_error` the sign-in page explains, and the trail's reason. */
export type TOidcRefusal = 'unverified_email' | 'domain_not_allowed' | 'no_account' | 'deactivated';

export type TOidcClaims = { [claim: string]: unknown; email?: unknown; email_verified?: unknown; name?: unknown; amr?: unknown };

/**
 * The amr values (RFC 8176) that show a factor beyond a password: 'mfa' (the provider says several
 * were used; Entra ID sends it), a one-time code, a hardware or smart-card key, or a biometric. Not
 * 'swk' alone (a software key may sit beside the password on the same device), nor 'pwd', 'pin' or 'kba'.
 */
export const SECOND_FACTOR_AMR = ['mfa', 'otp', 'hwk', 'sc', 'fpt', 'face', 'iris', 'retina'] as const;

export const showsSecondFactor = (amr: unknown) =>
  Array.isArray(amr) && amr.some((value) => (SECOND_FACTOR_AMR as readonly unknown[]).includes(value));

/** The email the provider vouches for, lower case; null when it did not verify it. */
export function verifiedEmailOf(claims: TOidcClaims): string | null {
  // Some providers write the flag as a string. Entra ID sends no email_verified: its optional claim
  // xms_edov says the email's domain is verified as the tenant's own, which is the same promise here.
  const isTrue = (value: unknown) => value === true || value === 'true' || value === '1';
  const verified = isTrue(claims.email_verified) || (claims.email_verified === undefined && isTrue(claims.xms_edov));
  return verified && typeof claims.email === 'string' && claims.email.includes('@') ? claims.email.trim().toLowerCase() : null;
}

function nameFrom(claims: TOidcClaims, email: string): string {
  const name = typeof claims.name === 'string' ? claims.name.trim().slice(0, 200) : '';
  // A name the People form would refuse is not taken from elsewhere either.
  return name && !hasHiddenCharacters(name) ? name : email.split('@')[0]!;
}

export async function findOidcAccount(
  claims: TOidcClaims,
  config: TOidcConfig,
): Promise<
  | { user: { id: number; name: string; email: string; role: 'director' | 'staff' }; email: string }
  | { refusal: TOidcRefusal; email: string }
> {
  const email = verifiedEmailOf(claims);
  if (!email) return { refusal: 'unverified_email', email: typeof claims.email === 'string' ? claims.email.toLowerCase() : '' };
  const domain = email.slice(email.lastIndexOf('@') + 1);
  if (config.allowedDomains.length && !config.allowedDomains.includes(domain)) return { refusal: 'domain_not_allowed', email };
  let user = await User.findOne({ where: { email } });
  if (!user) {
    if (config.createAccounts !== 'staff') return { refusal: 'no_account', email };
    // No password anyone knows: this person signs in through the provider (or is given one later).
    user = await createUser(
      { email, name: nameFrom(claims, email), role: 'staff', password: randomBytes(32).toString('base64url') },
      SYSTEM_ACTOR,
    );
  }
  if (user.deactivatedAt) return { refusal: 'deactivated', email };
  return { user: { id: user.id, name: user.name, email: user.email, role: user.role }, email };
}
