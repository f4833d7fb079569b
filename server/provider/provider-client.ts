import { extractProviderDetail, kindForStatus, ProviderError } from './provider-errors';

export const PROVIDER_TIMEOUT_MS = 10_000;

export type TProviderClientOptions = {
  baseUrl: string;
  apiKey: string | undefined;
  profilePath: string;
  /** 10 s by default (SPEC §8); tests shorten it. */
  timeoutMs?: number;
};

export type TBusinessProfile = { verifiedName: string | null; qualityRating: string | null; raw: unknown };

/**
 * The messaging provider (SPEC §4.3, §4.4): one class owns the base URL, the key header, the
 * timeout and the parsing of answers. Every failure is a ProviderError; nothing returns null.
 */
export class ProviderClient {
  private readonly baseUrl: string;
  private readonly apiKey: string | undefined;
  private readonly profilePath: string;
  private readonly timeoutMs: number;

  constructor(options: TProviderClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.apiKey = options.apiKey;
    this.profilePath = options.profilePath;
    this.timeoutMs = options.timeoutMs ?? PROVIDER_TIMEOUT_MS;
  }

  /** Sends a text; returns the provider message id (`messages[0].id`). `to` is digits only. */
  async sendText(to: string, body: string): Promise<{ id: string }> {
    const payload = {
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to,
      type: 'text',
      text: { body, preview_url: false },
    };
    const answer = await this.request('POST', '/messages', payload);
    const id = (answer as { messages?: { id?: unknown }[] } | null)?.messages?.[0]?.id;
    if (typeof id !== 'string' || !id) throw new ProviderError('unexpected', 200, 'no messages[0].id in the answer');
    return { id };
  }

  /** Reads the business profile: read-only, sends nothing. */
  async getProfile(): Promise<TBusinessProfile> {
    const raw = await this.request('GET', this.profilePath);
    const candidates = [raw, ...(Array.isArray((raw as { data?: unknown })?.data) ? (raw as { data: unknown[] }).data : [])];
    const pick = (key: string) => {
      for (const c of candidates) {
        const v = (c as Record<string, unknown> | null)?.[key];
        if (typeof v === 'string' && v) return v;
      }
      return null;
    };
    return { verifiedName: pick('verified_name'), qualityRating: pick('quality_rating'), raw };
  }

  private async request(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
    if (!this.apiKey) throw new ProviderError('not_configured');
    let res: Response;
    try {
      res = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: {
          'PROVIDER-API-KEY': this.apiKey,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      const name = (error as Error).name;
      throw new ProviderError(name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'network');
    }
    let text: string;
    try {
      text = await res.text();
    } catch (error) {
      throw new ProviderError((error as Error).name === 'TimeoutError' ? 'timeout' : 'network', res.status);
    }
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    if (!res.ok) throw new ProviderError(kindForStatus(res.status), res.status, extractProviderDetail(json));
    return json;
  }
}
