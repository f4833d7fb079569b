import { parseProviderTemplate, type TProviderTemplate } from '../templates/provider-template';
import { extractProviderCode, extractProviderDetail, kindForStatus, ProviderError } from './provider-errors';

export const PROVIDER_TIMEOUT_MS = 10_000;

export type TProviderClientOptions = {
  baseUrl: string;
  apiKey: string | undefined;
  profilePath: string;
  /** 10 s by default (SPEC §8); tests shorten it. */
  timeoutMs?: number;
};

/** Pages followed at most when listing templates (a provider paging in circles cannot hold a sync). */
const MAX_TEMPLATE_PAGES = 50;

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
    return this.messageIdOf(await this.request('POST', '/messages', payload));
  }

  private messageIdOf(answer: unknown): { id: string } {
    const id = (answer as { messages?: { id?: unknown }[] } | null)?.messages?.[0]?.id;
    if (typeof id !== 'string' || !id) throw new ProviderError('unexpected', 200, 'no messages[0].id in the answer');
    return { id };
  }

  /**
   * Sends an approved template (DESIGN "Approved templates": the exact body). `components` is left
   * out when the template has no parameters.
   */
  async sendTemplate(to: string, template: { name: string; language: string; params: string[] }): Promise<{ id: string }> {
    const payload = {
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to,
      type: 'template',
      template: {
        name: template.name,
        language: { code: template.language },
        ...(template.params.length
          ? { components: [{ type: 'body', parameters: template.params.map((text) => ({ type: 'text', text })) }] }
          : {}),
      },
    };
    return this.messageIdOf(await this.request('POST', '/messages', payload));
  }

  /**
   * Every template the provider lists, following every page: the provider's own shape
   * (`{waba_templates, offset, total}`, paged by offset) and the cloud API's (`{data, paging.next}`;
   * a next page is fetched from the provider's host, never another, so the key goes nowhere else).
   */
  async listTemplates(templatesPath: string): Promise<TProviderTemplate[]> {
    const templates: TProviderTemplate[] = [];
    const origin = new URL(this.baseUrl).origin;
    let url: string | null = `${this.baseUrl}${templatesPath}`;
    const seen = new Set<string>();
    for (let page = 0; url && page < MAX_TEMPLATE_PAGES && !seen.has(url); page++) {
      seen.add(url);
      const answer = (await this.requestUrl('GET', url)) as Record<string, unknown> | null;
      const items = Array.isArray(answer?.waba_templates) ? answer.waba_templates : Array.isArray(answer?.data) ? answer.data : null;
      if (!items) throw new ProviderError('unexpected', 200, 'no template list in the answer');
      for (const item of items) {
        const template = parseProviderTemplate(item);
        if (template) templates.push(template);
      }
      url = null;
      const next = (answer?.paging as { next?: unknown } | undefined)?.next;
      if (typeof next === 'string' && next) {
        const nextUrl = new URL(next, this.baseUrl);
        url = `${origin}${nextUrl.pathname}${nextUrl.search}`;
      } else if (Array.isArray(answer?.waba_templates) && typeof answer.total === 'number') {
        const offset = (typeof answer.offset === 'number' ? answer.offset : 0) + items.length;
        if (items.length > 0 && offset < answer.total) {
          const nextUrl = new URL(`${this.baseUrl}${templatesPath}`);
          nextUrl.searchParams.set('offset', String(offset));
          if (typeof answer.limit === 'number') nextUrl.searchParams.set('limit', String(answer.limit));
          url = nextUrl.toString();
        }
      }
    }
    return templates;
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

  private request(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
    return this.requestUrl(method, `${this.baseUrl}${path}`, body);
  }

  private async requestUrl(method: 'GET' | 'POST', url: string, body?: unknown): Promise<unknown> {
    if (!this.apiKey) throw new ProviderError('not_configured');
    let res: Response;
    try {
      res = await fetch(url, {
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
    if (!res.ok) throw new ProviderError(kindForStatus(res.status), res.status, extractProviderDetail(json), extractProviderCode(json));
    return json;
  }
}
