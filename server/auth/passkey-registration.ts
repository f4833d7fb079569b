import { generateRegistrationOptions, verifyRegistrationResponse } from '@simplewebauthn/server';
import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/server';
import { recordAuditEvent, type TActor } from '../audit';
import { db } from '../core/db/db';
import { AppError } from '../core/errors';
import type { TSessionUser } from '../core/session-user';
import { queryRows, sql } from '../core/sql';
import { passkeyUserHandle } from './passkey-assertion';
import { challengeOfClientData, storeChallenge, takeChallenge } from './passkey-challenges';
import type { TRegistrationResponse } from './passkey-responses';
import type { TPasskeyRp } from './passkey-rp';

/** A passkey as its person sees it in Settings. */
export type TPasskeyItem = { id: number; name: string; createdAt: Date; lastUsedAt: Date | null };

export const PASSKEY_NAME_MAX = 100;

/**
 * What the browser needs to make a passkey for this person: their existing ones excluded (one
 * authenticator is not enrolled twice), a discoverable credential preferred (passkey-only sign-in
 * finds it), user verification required.
 */
export async function passkeyRegistrationOptions(
  user: TSessionUser,
  rp: TPasskeyRp,
  now: Date,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const existing = await queryRows<{ credentialId: string; transports: string[] }>(
    sql`SELECT credential_id AS "credentialId", transports FROM passkeys WHERE user_id = ${user.id}`,
  );
  const options = await generateRegistrationOptions({
    rpName: rp.rpName,
    rpID: rp.rpId,
    userName: user.email,
    userDisplayName: user.name,
    userID: passkeyUserHandle(user.id),
    attestationType: 'none',
    excludeCredentials: existing.map((c) => ({ id: c.credentialId, transports: c.transports })),
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
  });
  await storeChallenge(options.challenge, 'register', { userId: user.id, rp }, now);
  return options;
}

const refused = (message: string) => new AppError('INVALID_INPUT', message);

/** Checks the browser's new credential against the challenge issued to this person, and keeps it. */
export async function registerPasskey(
  input: { response: TRegistrationResponse; name: string | undefined },
  actor: TActor & { userId: number },
  now: Date,
): Promise<TPasskeyItem> {
  const challenge = challengeOfClientData(input.response.response.clientDataJSON);
  const issued = challenge ? await takeChallenge(challenge, 'register', now) : null;
  if (!challenge || !issued || issued.userId !== actor.userId) {
    throw refused('That passkey request has expired or was already used. Choose “Add a passkey” again.');
  }
  const verification = await verifyRegistrationResponse({
    response: input.response,
    expectedChallenge: challenge,
    expectedOrigin: issued.rp.origin,
    expectedRPID: issued.rp.rpId,
    requireUserVerification: true,
  }).catch(() => null);
  if (!verification?.verified) throw refused('The new passkey could not be verified. Try again.');
  const { credential } = verification.registrationInfo;
  return db().transaction(async (transaction) => {
    const [{ n } = { n: 0 }] = await queryRows<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM passkeys WHERE user_id = ${actor.userId}`,
      {
        transaction,
      },
    );
    const name = input.name?.trim() || `Passkey ${n + 1}`;
    const [row] = await queryRows<TPasskeyItem>(
      sql`INSERT INTO passkeys (user_id, credential_id, public_key, counter, transports, name, created_at)
          VALUES (${actor.userId}, ${credential.id}, ${Buffer.from(credential.publicKey)}, ${credential.counter},
                  ${credential.transports ?? []}, ${name}, ${now})
          ON CONFLICT (credential_id) DO NOTHING
          RETURNING id, name, created_at AS "createdAt", last_used_at AS "lastUsedAt"`,
      { transaction },
    );
    if (!row) throw new AppError('CONFLICT', 'This passkey is already registered.');
    await recordAuditEvent(
      { actor, action: 'auth.passkey_add', subject: `user:${actor.userId}`, detail: { passkeyId: row.id, name } },
      transaction,
    );
    return row;
  });
}
