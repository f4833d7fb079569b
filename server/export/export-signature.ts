import { verifySignature, type TSigningKey } from '../signing';

// Every export is signed with the firm's key (server/decisions/0023-signing-key.md): a PDF or JSON file
// (and the ZIP as a whole) by a signature over its 32-byte SHA-256, sent as `X-Signature` and kept in
// its audit event; a court bundle also by `manifest.sig` over its manifest's exact bytes.

export const SIGNATURE_ALGORITHM = 'Ed25519';
/** The bundle's entry holding the base64 signature over manifest.json. */
export const MANIFEST_SIGNATURE_ENTRY = 'manifest.sig';

/** The firm's public key as a check needs it, with its retired ones (what they signed is still the firm's). */
export type TPublicKey = Pick<TSigningKey, 'publicKeyPem' | 'fingerprint'> & { retired?: TSigningKey['retired'] };

/** How a file's digest (hex) is signed: over its 32 bytes, so a signature can be checked from `sha256sum`'s output. */
export const digestBytes = (sha256: string) => Buffer.from(sha256, 'hex');

export const signDigest = (key: TSigningKey, sha256: string) => key.sign(digestBytes(sha256));

export const verifyDigest = (sha256: string, signature: string, key: TPublicKey) =>
  verifySignature(digestBytes(sha256), signature, key.publicKeyPem);

/** `X-Signature: ed25519=<base64>; key=<fingerprint>`. */
export const signatureHeader = (signature: string, fingerprint: string) => `ed25519=${signature}; key=${fingerprint}`;

/**
 * What a check found of a copy's signature: `valid` under the firm's key; `missing` (an export made
 * before exports were signed, or an audit row someone wrote); `invalid` (the signature does not verify:
 * the signed bytes changed); `other-key` (it names, or was made by, a key that is not the firm's);
 * `unchecked` when no public key was at hand.
 */
export type TSignatureState = 'valid' | 'missing' | 'invalid' | 'other-key' | 'unchecked';
export type TSignatureCheck = { state: TSignatureState; fingerprint: string | null };

/**
 * A signature named with the fingerprint it was made under, checked against the firm's key: a
 * fingerprint that is not the firm's is another key's, whether the signature is good for it or not.
 */
export function checkSigned(
  verify: (key: TPublicKey) => boolean,
  signed: { signature: string | null; fingerprint: string | null },
  key: TPublicKey | null,
): TSignatureCheck {
  if (!signed.signature) return { state: 'missing', fingerprint: signed.fingerprint };
  if (!key) return { state: 'unchecked', fingerprint: signed.fingerprint };
  // A signature names its key; one named by a retired key of the firm's is checked with that key.
  const named = signed.fingerprint === null ? key : [key, ...(key.retired ?? [])].find((k) => k.fingerprint === signed.fingerprint);
  if (!named) return { state: 'other-key', fingerprint: signed.fingerprint };
  return { state: verify(named) ? 'valid' : 'invalid', fingerprint: signed.fingerprint ?? key.fingerprint };
}

/** Why a copy is not genuine by its signature, as the end of a sentence; null when it is signed by the firm. */
export function signatureProblem(check: TSignatureCheck, what: string): string | null {
  switch (check.state) {
    case 'valid':
      return null;
    case 'missing':
      return `${what} carries no signature of the firm's key, so nothing proves the firm made it`;
    case 'invalid':
      return `${what} has a signature that does not verify against the firm's key: what was signed has changed since`;
    case 'other-key':
      return `${what} is signed by a key that is not the firm's (key ${check.fingerprint?.slice(0, 16) ?? 'unnamed'}…)`;
    case 'unchecked':
      return `${what}'s signature was not checked: no public key of the firm was given`;
  }
}

/**
 * The signature that proves a checked copy: a bundle's manifest.sig (checked with the file), or for
 * any other file the one its export event recorded over the file's digest; null when no export matched.
 */
export function signatureOfCopy(
  check: { kind: string; sha256: string; signature: TSignatureCheck | null },
  recorded: { signature: string | null; fingerprint: string | null } | null,
  key: TPublicKey | null,
): TSignatureCheck | null {
  if (check.kind === 'zip') return check.signature;
  if (!recorded) return null;
  return checkSigned((firm) => verifyDigest(check.sha256, recorded.signature ?? '', firm), recorded, key);
}
