import { parse as parseCookies } from 'cookie';
import type { Request, RequestHandler, Response } from 'express';
import * as client from 'openid-client';
import type { SIGN_IN_REFUSALS } from '../../../shared/audit/audit-details';
import { recordAuditEvent } from '../../audit';
import type { TOidcConfig } from '../../core/config';
import type { TLogger } from '../../core/logger';
import { AppError } from '../../core/errors';
import { SESSION_COOKIE } from '../sessions';
import { startSession } from '../start-session';
import type { SignInLimiter } from '../sign-in-limiter';
import { issueSignInTicket } from '../sign-in-ticket';
import { findOidcAccount, showsSecondFactor, type TOidcClaims, type TOidcRefusal } from './oidc-account';
import { createOidcClient } from './oidc-provider-client';
import { OIDC_STATE_COOKIE, OIDC_STATE_TTL_MS, openOidcState, sealOidcState } from './oidc-state-cookie';

export const OIDC_START_PATH = '/api/auth/oidc/start';
export const OIDC_CALLBACK_PATH = '/api/auth/oidc/callback';

/** What the sign-in page is told (`/sign-in?sso_error=<code>`): it says each in a plain sentence. */
export type TSsoError = TOidcRefusal | 'failed' | 'too_many' | 'unavailable';

const TRAIL_REASON: Record<TOidcRefusal | 'failed', (typeof SIGN_IN_REFUSALS)[number]> = {
  unverified_email: 'sso_unverified_email',
  domain_not_allowed: 'sso_domain_not_allowed',
  no_account: 'unknown_email',
  deactivated: 'deactivated',
  failed: 'sso_failed',
};

export type TOidcRouteDeps = {
  config: TOidcConfig;
  signInLimiter: SignInLimiter;
  sessionSecret: string;
  secureCookies: boolean;
  logger: TLogger;
  now: () => Date;
};

/** GET /api/auth/oidc/start and /callback: sign-in through the firm's OpenID provider (code flow with PKCE). */
export function createOidcRoutes(deps: TOidcRouteDeps): { start: RequestHandler; callback: RequestHandler } {
  const provider = createOidcClient(deps.config);
  const cookieOptions = { httpOnly: true, sameSite: 'lax' as const, secure: deps.secureCookies, path: '/api/auth/oidc' };
  const refuse = (res: Response, code: TSsoError) => res.redirect(302, `/sign-in?sso_error=${code}`);

  const start: RequestHandler = async (_req, res) => {
    let configuration: client.Configuration;
    try {
      configuration = await provider.configuration();
    } catch (error) {
      deps.logger.warn({ error: (error as Error).name }, 'single sign-on: the provider could not be reached');
      return refuse(res, 'unavailable');
    }
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(configuration, {
      redirect_uri: deps.config.redirectUri,
      scope: 'openid email profile',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    res.cookie(OIDC_STATE_COOKIE, sealOidcState({ verifier, state, nonce }, deps.sessionSecret, deps.now()), {
      ...cookieOptions,
      maxAge: OIDC_STATE_TTL_MS,
    });
    res.redirect(302, url.href);
  };

  const failed = async (req: Request, res: Response, reason: TOidcRefusal | 'failed', email: string) => {
    await recordAuditEvent({
      actor: { userId: null, ip: req.ip ?? null },
      action: 'auth.sign_in_failed',
      subject: email ? `email:${email}` : 'sso',
      detail: { email, reason: TRAIL_REASON[reason] },
    });
    refuse(res, reason);
  };

  const callback: RequestHandler = async (req, res) => {
    const ip = req.ip ?? req.socket.remoteAddress ?? 'unknown';
    try {
      await deps.signInLimiter.consumeAddress(ip);
    } catch (error) {
      if (error instanceof AppError && error.code === 'TOO_MANY_REQUESTS') return refuse(res, 'too_many');
      throw error;
    }
    // Used once: whatever happens next, this browser starts again for another try.
    const saved = openOidcState(parseCookies(req.headers.cookie ?? '')[OIDC_STATE_COOKIE], deps.sessionSecret, deps.now());
    res.clearCookie(OIDC_STATE_COOKIE, cookieOptions);
    if (!saved) return failed(req, res, 'failed', '');
    let claims: TOidcClaims;
    try {
      const configuration = await provider.configuration();
      const tokens = await client.authorizationCodeGrant(
        configuration,
        new URL(`${deps.config.redirectUri}${new URL(req.originalUrl, 'http://callback').search}`),
        {
          pkceCodeVerifier: saved.verifier,
          expectedState: saved.state,
          expectedNonce: saved.nonce,
          idTokenExpected: true,
        },
      );
      const idToken = tokens.claims();
      if (!idToken) throw new Error('no ID token');
      claims = { ...idToken };
      // Providers that keep the email out of the ID token give it at the userinfo endpoint; amr stays the ID token's.
      if (claims.email === undefined || claims.email_verified === undefined) {
        const info = await client.fetchUserInfo(configuration, tokens.access_token, idToken.sub);
        claims = { ...claims, ...info, amr: claims.amr };
      }
    } catch (error) {
      // The error's kind only: a provider's message may quote the code or a token.
      deps.logger.warn({ error: (error as Error).name, code: (error as { code?: string }).code }, 'single sign-on answer refused');
      return failed(req, res, 'failed', '');
    }
    const found = await findOidcAccount(claims, deps.config);
    if ('refusal' in found) return failed(req, res, found.refusal, found.email);
    const { user } = found;
    await deps.signInLimiter.rewardAddress(ip);
    // A second factor the person set up here is still asked for, unless the provider says it asked for one.
    if (!showsSecondFactor(claims.amr)) {
      const ticket = await issueSignInTicket(user.id, 'oidc', deps.now());
      if (ticket) return res.redirect(302, `/sign-in#mfa=${ticket.ticket}&methods=${ticket.methods.join(',')}`);
    }
    const place = {
      oldToken: parseCookies(req.headers.cookie ?? '')[SESSION_COOKIE] ?? null,
      ip,
      userAgent: req.get('user-agent') ?? null,
      setCookie: (token: string, expires: Date) =>
        res.cookie(SESSION_COOKIE, token, { httpOnly: true, sameSite: 'lax', secure: deps.secureCookies, path: '/', expires }),
    };
    // The provider said it asked for a second factor (its amr): that counts as one proven here.
    await startSession(user.id, { method: 'oidc', secondFactor: showsSecondFactor(claims.amr) }, place, deps);
    res.redirect(302, '/');
  };

  return { start, callback };
}
