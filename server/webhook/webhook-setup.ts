import { isIP } from 'node:net';
import type { TConfig } from '../core/config';
import { listDeliveryOutcomes, type TDeliveryOutcome } from './delivery-log';
import { SECRET_HEADER, SIGNATURE_HEADERS } from './verify-signature';

export type TWebhookSetup = {
  webhookUrl: string;
  /** The custom header the provider sends the secret in (its webhook "headers" object). */
  secretHeader: string;
  /** Or a proxy in front signs each body: hex HMAC-SHA256 of the raw bytes in one of these. */
  signatureHeaders: string[];
  secretConfigured: boolean;
  verifyTokenConfigured: boolean;
  unauthenticatedAllowed: boolean;
  /** Why the provider may not be able to reach `webhookUrl`; empty when nothing looks wrong. */
  siteUrlWarnings: string[];
  lastDelivery: { at: Date; outcome: TDeliveryOutcome; httpStatus: number } | null;
  lastAcceptedAt: Date | null;
};

function isPrivateIpv4(address: string): boolean {
  const [a = 0, b = 0] = address.split('.').map(Number);
  return (
    a === 0 ||
    a === 10 ||
    a === 127 || // this network, private, loopback
    (a === 100 && b >= 64 && b <= 127) || // carrier-grade NAT
    (a === 169 && b === 254) || // link-local
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168)
  );
}

function isPrivateIpv6(address: string): boolean {
  const a = address.toLowerCase();
  if (a === '::' || a === '::1') return true;
  // An IPv4 address written as IPv6 (URL writes ::ffff:192.168.0.1 as ::ffff:c0a8:1).
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(a);
  if (mapped) {
    const [high, low] = [parseInt(mapped[1]!, 16), parseInt(mapped[2]!, 16)];
    return isPrivateIpv4(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`);
  }
  return /^f[cd]/.test(a) || /^fe[89ab]/.test(a); // unique local fc00::/7, link-local fe80::/10
}

/**
 * What stops the provider, out on the internet, from delivering to this site URL: a name or address
 * only this machine or network knows, or plain http (the provider delivers to https only).
 */
export function describeSiteUrlProblems(siteUrl: string): string[] {
  let url: URL;
  try {
    url = new URL(siteUrl);
  } catch {
    return [`NEXT_PUBLIC_SITE_URL (${siteUrl}) is not an address the provider can use.`];
  }
  const problems: string[] = [];
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const kind = isIP(host);
  if (host === 'localhost' || host.endsWith('.localhost')) {
    problems.push(
      `NEXT_PUBLIC_SITE_URL is ${url.origin}: "localhost" is this computer, which the provider cannot reach. Set it to the firm's public https address.`,
    );
  } else if ((kind === 4 && isPrivateIpv4(host)) || (kind === 6 && isPrivateIpv6(host))) {
    problems.push(
      `NEXT_PUBLIC_SITE_URL is ${url.origin}: ${host} is a private or loopback address, not reachable from the internet. Set it to the firm's public https address.`,
    );
  } else if (kind === 0 && (!host.includes('.') || /\.(local|internal|lan|home|corp|intranet)$/.test(host))) {
    problems.push(
      `NEXT_PUBLIC_SITE_URL is ${url.origin}: "${host}" is a local network name the provider cannot look up. Set it to the firm's public https address.`,
    );
  }
  if (url.protocol !== 'https:') {
    problems.push(
      `NEXT_PUBLIC_SITE_URL starts with ${url.protocol}// — the provider delivers only to https:// addresses with a valid certificate.`,
    );
  }
  return problems;
}

/** Everything a director needs to register the webhook at the provider; never a secret's value. */
export async function readWebhookSetup(config: TConfig): Promise<TWebhookSetup> {
  const outcomes = await listDeliveryOutcomes();
  const last = outcomes[0];
  return {
    webhookUrl: `${config.siteUrl}/api/webhooks/chat`,
    secretHeader: SECRET_HEADER,
    signatureHeaders: [...SIGNATURE_HEADERS],
    secretConfigured: Boolean(config.messaging.webhookSecret),
    verifyTokenConfigured: Boolean(config.messaging.verifyToken),
    unauthenticatedAllowed: config.messaging.allowUnauthenticatedWebhooks,
    siteUrlWarnings: describeSiteUrlProblems(config.siteUrl),
    lastDelivery: last ? { at: last.lastAt, outcome: last.outcome, httpStatus: last.lastStatus } : null,
    lastAcceptedAt: outcomes.find((o) => o.outcome === 'accepted')?.lastAt ?? null,
  };
}
