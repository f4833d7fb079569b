import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { afterAll, beforeAll } from 'vitest';
import { startTestServer, type TTestServer } from './test-server';

// A real OpenID provider (oidc-provider) on a free port for the single sign-on tests: one client,
// accounts from a table the test fills, and a login step that signs in whoever the test names next
// (with the amr it says), answered over HTTP as a provider's own login page would.

/** `xms_edov`: Entra ID's "email domain owner verified", sent instead of email_verified. */
export type TTestAccount = { email: string; email_verified?: boolean; xms_edov?: boolean; name: string; role?: string };

export type TOidcTestProvider = {
  issuer: string;
  clientId: string;
  clientSecret: string;
  accounts: Map<string, TTestAccount>;
  /** Who the next login signs in, and the amr the ID token will carry. */
  nextLogin(accountId: string, amr: string[]): void;
  close(): Promise<void>;
};

export async function startOidcTestProvider(redirectUri: string): Promise<TOidcTestProvider> {
  const accounts = new Map<string, TTestAccount>();
  let next: { accountId: string; amr: string[] } | null = null;
  let provider: Provider | null = null;
  const server = http.createServer((req, res) => {
    if (!provider) return res.writeHead(503).end();
    if (req.url?.startsWith('/interaction/')) return void finishInteraction(provider, req, res);
    provider.callback()(req, res);
  });
  async function finishInteraction(p: Provider, req: http.IncomingMessage, res: http.ServerResponse) {
    try {
      const details = await p.interactionDetails(req, res);
      if (!next) throw new Error('the test named nobody to sign in');
      const grant = new p.Grant({ accountId: next.accountId, clientId: String(details.params.client_id) });
      grant.addOIDCScope('openid email profile');
      const grantId = await grant.save();
      await p.interactionFinished(
        req,
        res,
        { login: { accountId: next.accountId, amr: next.amr }, consent: { grantId } },
        { mergeWithLastSubmission: false },
      );
    } catch (error) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end((error as Error).message);
    }
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://localhost:${(server.address() as AddressInfo).port}`;
  const clientId = 'firm-chat';
  const clientSecret = 'firm-chat-test-client-secret-0123456789';
  provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    // The ID token always says how the person signed in (amr), as Entra ID's does; oidc-provider sends
    // a claim only when a scope names it.
    claims: {
      acr: null,
      sid: null,
      auth_time: null,
      iss: null,
      openid: ['sub', 'amr'],
      email: ['email', 'email_verified', 'xms_edov'],
      profile: ['name'],
      role: ['role'],
    },
    findAccount: (_ctx: unknown, id: string) => {
      const account = accounts.get(id);
      return Promise.resolve(account && { accountId: id, claims: () => Promise.resolve({ sub: id, ...account }) });
    },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    pkce: { required: () => true },
    cookies: { keys: ['oidc-test-provider-cookie-key'] },
  });
  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    nextLogin: (accountId, amr) => {
      next = { accountId, amr };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Cookies as one browser keeps them, for plain fetches that follow no redirect by themselves. */
export class CookieJar {
  private readonly cookies = new Map<string, string>();
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1);
      if (!value || /expires=Thu, 01 Jan 1970/i.test(line) || /max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  get(name: string): string | undefined {
    return this.cookies.get(name);
  }
  set(name: string, value: string): void {
    this.cookies.set(name, value);
  }
}

/**
 * One browser's single sign-on through the app and the provider: /api/auth/oidc/start, the provider's
 * pages (its login answered for `accountId` with `amr`), back to the app's callback. `alter` may change
 * what the provider sent back before it reaches the app (an attacker's state). The app's last answer.
 */
export async function signInThroughProvider(
  appUrl: string,
  provider: TOidcTestProvider,
  login: { accountId: string; amr: string[] },
  alter: (callback: URL) => void = () => undefined,
): Promise<{ status: number; location: string; app: CookieJar }> {
  const app = new CookieJar();
  const idp = new CookieJar();
  let res = await fetch(`${appUrl}/api/auth/oidc/start`, { redirect: 'manual' });
  app.take(res);
  let url = new URL(res.headers.get('location') ?? '', appUrl);
  provider.nextLogin(login.accountId, login.amr);
  for (let hop = 0; hop < 10 && url.href.startsWith(provider.issuer); hop++) {
    res = await fetch(url, { redirect: 'manual', headers: { cookie: idp.header() } });
    idp.take(res);
    const next = res.headers.get('location');
    if (!next) throw new Error(`the provider answered ${res.status} at ${url.pathname}: ${await res.text()}`);
    url = new URL(next, url);
  }
  if (!url.pathname.endsWith('/api/auth/oidc/callback')) throw new Error(`the provider did not send the browser back: ${url.href}`);
  alter(url);
  res = await fetch(`${appUrl}/api/auth/oidc/callback${url.search}`, { redirect: 'manual', headers: { cookie: app.header() } });
  app.take(res);
  return { status: res.status, location: res.headers.get('location') ?? '', app };
}

/** The site the single sign-on tests' app says it is (its redirect URI is registered with the provider). */
export const OIDC_TEST_SITE = 'https://chat.firm.example';

/**
 * A provider and an app set up for single sign-on with it, for one file (`beforeAll`); `stop` ends both.
 * `env`: the file's own settings (allowed domains, account creation).
 */
export function useOidcApp(env: Record<string, string>): { provider: () => TOidcTestProvider; server: () => TTestServer } {
  let provider: TOidcTestProvider | undefined;
  let server: TTestServer | undefined;
  beforeAll(async () => {
    provider = await startOidcTestProvider(`${OIDC_TEST_SITE}/api/auth/oidc/callback`);
    server = await startTestServer({
      SESSION_SECRET: 'test-session-secret-0123456789abcdef',
      NEXT_PUBLIC_SITE_URL: OIDC_TEST_SITE,
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: provider.clientId,
      OIDC_CLIENT_SECRET: provider.clientSecret,
      ...env,
    });
  });
  afterAll(async () => {
    await server?.stop();
    await provider?.close();
  });
  return { provider: () => provider!, server: () => server! };
}
