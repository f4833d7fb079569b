import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

export type TWebhookAuth = { secret: string | undefined; allowUnauthenticated: boolean };

const HEX_DIGEST = /^[0-9a-f]{64}$/;

/** Where the provider's custom headers object puts the secret itself (Settings names it). */
export const SECRET_HEADER = 'x-service-webhook-secret';
/** Where a proxy in front puts its HMAC-SHA256 of the raw body (Settings names them). */
export const SIGNATURE_HEADERS = ['x-service-signature', 'x-hub-signature-256'] as const;

// Equal-length digests of both sides, so the comparison is constant-time and cannot throw
// whatever the lengths or encodings of the inputs.
function safeEqualStrings(a: string, b: string): boolean {
  const da = createHash('sha256').update(a, 'utf8').digest();
  const db = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(da, db);
}

function verifyHexSignature(header: string, rawBody: Buffer, secret: string): boolean {
  const hex = header.startsWith('sha256=') ? header.slice('sha256='.length) : header;
  // Exactly 64 lowercase hex characters; anything else (empty, odd length, uppercase,
  // non-hex, two headers folded into "a, b") is refused before any comparison.
  if (!HEX_DIGEST.test(hex)) return false;
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  return timingSafeEqual(Buffer.from(hex, 'hex'), expected);
}

/**
 * Whether the caller proved knowledge of MESSAGING_WEBHOOK_SECRET (SPEC §5): an HMAC-SHA256 of the
 * raw bytes in X-Service-Signature or X-Hub-Signature-256, or the secret in x-service-webhook-secret.
 * The query string is never looked at: a secret in a URL ends up in access logs.
 */
export function isWebhookAuthentic(headers: IncomingHttpHeaders, rawBody: Buffer, auth: TWebhookAuth): boolean {
  // ALLOW_UNAUTHENTICATED_WEBHOOKS=true disables authentication (SPEC §1.5), for local development.
  if (auth.allowUnauthenticated) return true;
  if (!auth.secret) return false; // fail-closed (SPEC §5 rule 2)
  const secret = auth.secret;
  const single = (name: string): string | undefined => {
    const value = headers[name];
    return typeof value === 'string' ? value : undefined;
  };
  const signatures = SIGNATURE_HEADERS.map(single).filter((v) => v !== undefined);
  if (signatures.some((signature) => verifyHexSignature(signature, rawBody, secret))) return true;
  const plain = single(SECRET_HEADER);
  return plain !== undefined && plain.length > 0 && safeEqualStrings(plain, secret);
}

/**
 * Whether a POST could be authentic, from its headers alone: the right secret, or a well-formed
 * signature (checked against the body once read). A POST with neither is refused before its body
 * is read, so a flood of large forged bodies is never buffered.
 */
export function mayBeAuthentic(headers: IncomingHttpHeaders, auth: TWebhookAuth): boolean {
  if (auth.allowUnauthenticated) return true;
  if (!auth.secret) return false;
  const secret = auth.secret;
  const hasSignature = SIGNATURE_HEADERS.some((name) => {
    const value = headers[name];
    return typeof value === 'string' && HEX_DIGEST.test(value.startsWith('sha256=') ? value.slice('sha256='.length) : value);
  });
  if (hasSignature) return true;
  const plain = headers[SECRET_HEADER];
  return typeof plain === 'string' && plain.length > 0 && safeEqualStrings(plain, secret);
}

export { safeEqualStrings };
