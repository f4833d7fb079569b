import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

// What the callback must check the provider's answer against (PKCE verifier, state, nonce) rides in
// the browser that started the sign-in, sealed (AES-256-GCM) with a key derived from SESSION_SECRET:
// no row, no memory, so any instance can finish what another began, and the browser can neither
// read nor change it.

export const OIDC_STATE_COOKIE = 'firm_chat_oidc';
/** How long a person has at the provider before the sign-in must start again. */
export const OIDC_STATE_TTL_MS = 10 * 60 * 1000;

export type TOidcState = { verifier: string; state: string; nonce: string };

const keyOf = (secret: string) => createHash('sha256').update(`oidc-state:${secret}`).digest();

export function sealOidcState(value: TOidcState, secret: string, now: Date): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(secret), iv);
  const body = Buffer.concat([cipher.update(JSON.stringify({ ...value, exp: now.getTime() + OIDC_STATE_TTL_MS }), 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), body].map((part) => part.toString('base64url')).join('.');
}

/** The sealed state, or null: missing, altered, sealed with another secret, or expired. */
export function openOidcState(sealed: string | undefined, secret: string, now: Date): TOidcState | null {
  const [iv, tag, body] = (sealed ?? '').split('.').map((part) => Buffer.from(part, 'base64url'));
  if (!iv || !tag || !body || iv.length !== 12 || tag.length !== 16) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyOf(secret), iv);
    decipher.setAuthTag(tag);
    const value = JSON.parse(Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8')) as TOidcState & { exp: number };
    if (typeof value.exp !== 'number' || value.exp <= now.getTime()) return null;
    return { verifier: value.verifier, state: value.state, nonce: value.nonce };
  } catch {
    return null;
  }
}
