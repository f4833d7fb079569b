import { verifyAuthenticationResponse } from '@simplewebauthn/server';
import { AppError } from '../core/errors';
import { queryRows, sql } from '../core/sql';
import { challengeOfClientData, takeChallenge } from './passkey-challenges';
import { ZAuthenticationResponse } from './passkey-responses';

/** The user handle a person's passkeys carry (registration sets it): their id, as text. */
export const passkeyUserHandle = (userId: number) => new TextEncoder().encode(String(userId));

const UNREADABLE = 'The passkey answer could not be read. Try again.';
const STALE = 'That passkey request has expired or was already used. Try again.';
const UNKNOWN = 'That passkey is not registered with Firm Chat for this account.';
const NOT_VERIFIED = 'The passkey could not be verified. Try again.';

const refused = (message: string) => new AppError('UNAUTHORIZED', message);

type TStored = { id: number; userId: number; publicKey: Buffer; counter: string; transports: string[] };

/**
 * Checks a browser's passkey answer (an assertion): against a challenge this server issued for
 * signing in (unexpired, taken once), the stored credential (when `expectedUserId` is given, that
 * person's), the RP the challenge was issued for, with user verification required. A counter the
 * authenticator keeps must go up (a cloned key's answer is refused). Throws UNAUTHORIZED with a
 * plain sentence on any failure; on success the credential's counter and last use are written.
 */
export async function verifyPasskeyAssertion(response: unknown, expectedUserId: number | null, now: Date): Promise<{ userId: number }> {
  const parsed = ZAuthenticationResponse.safeParse(response);
  if (!parsed.success) throw refused(UNREADABLE);
  const answer = parsed.data;
  const challenge = challengeOfClientData(answer.response.clientDataJSON);
  if (!challenge) throw refused(UNREADABLE);
  // Taken before anything else is checked: a failed answer spends its challenge too.
  const issued = await takeChallenge(challenge, 'authenticate', now);
  if (!issued || (issued.userId !== null && issued.userId !== expectedUserId)) throw refused(STALE);
  const [stored] = await queryRows<TStored>(
    sql`SELECT id, user_id AS "userId", public_key AS "publicKey", counter, transports FROM passkeys WHERE credential_id = ${answer.id}`,
  );
  if (!stored || (expectedUserId !== null && stored.userId !== expectedUserId)) throw refused(UNKNOWN);
  // The authenticator names whose passkey it used (discoverable sign-in): it must be the owner's.
  if (answer.response.userHandle !== undefined) {
    const handle = Buffer.from(answer.response.userHandle, 'base64url').toString('utf8');
    if (handle !== String(stored.userId)) throw refused(UNKNOWN);
  }
  const storedCounter = Number(stored.counter);
  const verification = await verifyAuthenticationResponse({
    response: answer,
    expectedChallenge: challenge,
    expectedOrigin: issued.rp.origin,
    expectedRPID: issued.rp.rpId,
    credential: { id: answer.id, publicKey: new Uint8Array(stored.publicKey), counter: storedCounter, transports: stored.transports },
    requireUserVerification: true,
  }).catch(() => null);
  if (!verification?.verified) throw refused(NOT_VERIFIED);
  const newCounter = verification.authenticationInfo.newCounter;
  // Guarded on the counter read above: of two answers racing with one count, only one gets through.
  const [updated] = await queryRows<{ id: number }>(
    sql`UPDATE passkeys SET counter = ${newCounter}, last_used_at = ${now}
        WHERE id = ${stored.id} AND counter = ${storedCounter} RETURNING id`,
  );
  if (!updated) throw refused(NOT_VERIFIED);
  return { userId: stored.userId };
}
