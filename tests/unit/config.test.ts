import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/core/config';

describe('configuration', () => {
  it('defaults to demo mode on port 3000 with the site URL derived from the port', () => {
    const config = loadConfig({});
    expect(config.mode).toBe('demo');
    expect(config.port).toBe(3000);
    expect(config.siteUrl).toBe('http://localhost:3000');
    expect(config.secureCookies).toBe(false);
    expect(config.messaging.allowUnauthenticatedWebhooks).toBe(false);
  });

  it('is live when MESSAGING_API_KEY is set, and then requires SESSION_SECRET', () => {
    expect(() => loadConfig({ MESSAGING_API_KEY: 'k' })).toThrow(/SESSION_SECRET/);
    const config = loadConfig({ MESSAGING_API_KEY: 'k', SESSION_SECRET: 'x'.repeat(32) });
    expect(config.mode).toBe('live');
  });

  it('names the variable when a value is invalid', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL/);
    expect(() => loadConfig({ ALLOW_UNAUTHENTICATED_WEBHOOKS: 'yes' })).toThrow(/ALLOW_UNAUTHENTICATED_WEBHOOKS/);
    expect(() => loadConfig({ NEXT_PUBLIC_SITE_URL: 'not a url' })).toThrow(/NEXT_PUBLIC_SITE_URL/);
  });

  it('gives a provider call 10 s by default; MESSAGING_TIMEOUT_SECONDS sets it, within 0.1 to 120 s', () => {
    expect(loadConfig({}).messaging.timeoutMs).toBe(10_000);
    expect(loadConfig({ MESSAGING_TIMEOUT_SECONDS: '2.5' }).messaging.timeoutMs).toBe(2_500);
    expect(() => loadConfig({ MESSAGING_TIMEOUT_SECONDS: '0' })).toThrow(/MESSAGING_TIMEOUT_SECONDS: must be at least 0.1/);
    expect(() => loadConfig({ MESSAGING_TIMEOUT_SECONDS: '600' })).toThrow(/MESSAGING_TIMEOUT_SECONDS: must be at most 120/);
    expect(() => loadConfig({ MESSAGING_TIMEOUT_SECONDS: 'ten' })).toThrow(/MESSAGING_TIMEOUT_SECONDS/);
  });

  it('uses secure cookies when the public site is https, and trims its trailing slash', () => {
    const config = loadConfig({ NEXT_PUBLIC_SITE_URL: 'https://chat.firm.example/' });
    expect(config.secureCookies).toBe(true);
    expect(config.siteUrl).toBe('https://chat.firm.example');
  });

  it('believes X-Forwarded-For from loopback by default; TRUST_PROXY sets whom, and refuses nonsense', () => {
    expect(loadConfig({}).trustProxy).toBe('loopback');
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8' }).trustProxy).toBe('loopback, 10.0.0.0/8');
    expect(() => loadConfig({ TRUST_PROXY: 'everyone' })).toThrow(/TRUST_PROXY: must be false, a number of proxy hops/);
  });
});
