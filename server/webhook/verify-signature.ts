import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** `secret`: MESSAGING_WEBHOOK_SECRET; `numberSecrets`: the firm numbers' own (server/numbers/README.md "Several numbers"). */
export type TWebhookAuth = { secret: string | undefined; allowUnauthenticated: boolean; numberSecrets?: string[] };

const secretsOf = (auth: TWebhookAuth): string[] =>
  [...new Set([auth.secret, ...(auth.numberSecrets ?? [])])].filter((s): s is string => !!s);

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

/**
 * What a POST's headers offer as proof, before anything is checked against the body: the digests
 * of its signature headers that are well formed — exactly 64 lowercase hex characters after an
 * optional "sha256=" (anything else: empty, odd length, uppercase, non-hex, two headers folded into
 * "a, b" is no signature) — and the secret it carries itself, if any.
 */
function credentialsOf(headers: IncomingHttpHeaders): { digests: string[]; plain: string | undefined } {
  const single = (name: string): string | undefined => {
    const value = headers[name];
    return typeof value === 'string' ? value : undefined;
  };
  const digests = SIGNATURE_HEADERS.map(single)
    .map((header) => (header?.startsWith('sha256=') ? header.slice('sha256='.length) : header))
    .filter((hex): hex is string => hex !== undefined && HEX_DIGEST.test(hex));
  const plain = single(SECRET_HEADER);
  return { digests, plain: plain ? plain : undefined };
}

/**
 * Whether the caller proved knowledge of MESSAGING_WEBHOOK_SECRET (server/webhook/README.md "The inbound webhook"): an
 * HMAC-SHA256 of the raw bytes in X-Service-Signature or X-Hub-Signature-256, or the secret in
 * x-service-webhook-secret.
 * The query string is never looked at: a secret in a URL ends up in access logs.
 */
export function isWebhookAuthentic(headers: IncomingHttpHeaders, rawBody: Buffer, auth: TWebhookAuth): boolean {
  // ALLOW_UNAUTHENTICATED_WEBHOOKS=true disables authentication (README.md "Configuration"), for local development.
  return auth.allowUnauthenticated || provenSecret(headers, rawBody, auth) !== null;
}

/** Which of the secrets the caller proved knowledge of (null: none; fail-closed when there are none, server/decisions/0008-webhook-authentication-fails-closed.md). */
export function provenSecret(headers: IncomingHttpHeaders, rawBody: Buffer, auth: TWebhookAuth): string | null {
  const { digests, plain } = credentialsOf(headers);
  for (const secret of secretsOf(auth)) {
    if (plain !== undefined && safeEqualStrings(plain, secret)) return secret;
    if (!digests.length) continue;
    const expected = createHmac('sha256', secret).update(rawBody).digest();
    if (digests.some((hex) => timingSafeEqual(Buffer.from(hex, 'hex'), expected))) return secret;
  }
  return null;
}

/**
 * Whether a POST could be authentic, from its headers alone: the right secret, or a well-formed
 * signature (checked against the body once read). A POST with neither is refused before its body
 * is read, so a flood of large forged bodies is never buffered.
 */
export function mayBeAuthentic(headers: IncomingHttpHeaders, auth: TWebhookAuth): boolean {
  if (auth.allowUnauthenticated) return true;
  const secrets = secretsOf(auth);
  if (!secrets.length) return false;
  const { digests, plain } = credentialsOf(headers);
  return digests.length > 0 || (plain !== undefined && secrets.some((secret) => safeEqualStrings(plain, secret)));
}

export { safeEqualStrings };
