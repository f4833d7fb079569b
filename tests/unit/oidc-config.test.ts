import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/core/config';

// Single sign-on's settings (server/core/config.ts): all optional, but an issuer needs its client.
describe('OIDC settings', () => {
  it('are off unless OIDC_ISSUER is set', () => {
    expect(loadConfig({}).oidc).toBeNull();
  });

  it('an issuer without its client id or secret stops start-up, naming the missing one', () => {
    expect(() => loadConfig({ OIDC_ISSUER: 'https://login.example.com/tenant/v2.0' })).toThrow(
      /OIDC_CLIENT_ID: required when OIDC_ISSUER is set/,
    );
    expect(() => loadConfig({ OIDC_ISSUER: 'https://login.example.com/tenant/v2.0', OIDC_CLIENT_ID: 'app' })).toThrow(
      /OIDC_CLIENT_SECRET: required when OIDC_ISSUER is set/,
    );
  });

  it('refuses an http:// issuer other than this machine, a bad domain list and an unknown OIDC_CREATE_ACCOUNTS', () => {
    const client = { OIDC_CLIENT_ID: 'app', OIDC_CLIENT_SECRET: 'secret' };
    expect(() => loadConfig({ ...client, OIDC_ISSUER: 'http://login.example.com' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...client, OIDC_ISSUER: 'https://login.example.com', OIDC_ALLOWED_DOMAINS: 'firm, x' })).toThrow(
      /OIDC_ALLOWED_DOMAINS/,
    );
    expect(() => loadConfig({ ...client, OIDC_ISSUER: 'https://login.example.com', OIDC_CREATE_ACCOUNTS: 'director' })).toThrow(
      /OIDC_CREATE_ACCOUNTS: must be "staff" or unset/,
    );
  });

  it('reads the rest: domains in lower case, the redirect URI from the site URL', () => {
    const config = loadConfig({
      NEXT_PUBLIC_SITE_URL: 'https://chat.firm.example/',
      OIDC_ISSUER: 'https://accounts.google.com',
      OIDC_CLIENT_ID: 'app',
      OIDC_CLIENT_SECRET: 'secret',
      OIDC_ALLOWED_DOMAINS: ' Firm.Example, @firm.co.uk ',
      OIDC_CREATE_ACCOUNTS: 'staff',
    });
    expect(config.oidc).toEqual({
      issuer: 'https://accounts.google.com',
      clientId: 'app',
      clientSecret: 'secret',
      allowedDomains: ['firm.example', 'firm.co.uk'],
      createAccounts: 'staff',
      redirectUri: 'https://chat.firm.example/api/auth/oidc/callback',
    });
    expect(loadConfig({ OIDC_ISSUER: 'http://localhost:4000', ...{ OIDC_CLIENT_ID: 'a', OIDC_CLIENT_SECRET: 'b' } }).oidc?.issuer).toBe(
      'http://localhost:4000',
    );
  });
});
