import { randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { parseProviderTemplate, type TProviderTemplate } from './provider-template';
import { extractProviderCode, extractProviderDetail, kindForStatus, ProviderError } from './provider-errors';
import { IdleAbort, isRedirect, neverConnected, onProviderHost, parseAnswer, redirectError } from './provider-http';
export const PROVIDER_TIMEOUT_MS = 10_000;
/** A file download or upload may take long; it fails when no byte has moved for this long. */
export const MEDIA_IDLE_TIMEOUT_MS = 30_000;

export type TMediaInfo = { url: string; mimeType: string | null; sha256: string | null; fileSize: number | null };
export type TMediaDownload = { body: AsyncIterable<Uint8Array>; contentLength: number | null };
export type TMediaSendKind = 'image' | 'video' | 'audio' | 'document';
/** A template's media header: an uploaded file's id, and a document's name as the client sees it. */
export type TTemplateHeaderMedia = { kind: 'document' | 'image' | 'video'; id: string; fileName?: string };
export type TProviderTemplateSend = { name: string; language: string; params: string[]; header?: TTemplateHeaderMedia };

export type TProviderClientOptions = {
  baseUrl: string;
  apiKey: string | undefined;
  profilePath: string;
  /** 10 s by default (server/messaging/README.md "Sending messages"); tests shorten it. */
  timeoutMs?: number;
};

/** Pages followed at most when listing templates (a provider paging in circles cannot hold a sync). */
const MAX_TEMPLATE_PAGES = 50;

export type TBusinessProfile = { verifiedName: string | null; qualityRating: string | null; raw: unknown };

/**
 * The messaging provider (server/messaging/README.md "Sending messages" and server/media/README.md "Files"): one class owns the base URL, the
 * key header, the timeout and the parsing of answers. Every failure is a ProviderError; nothing returns null.
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
    // Accepted (2xx) without an id: the message may well go, so its outcome is unknown, not failed.
    if (typeof id !== 'string' || !id) throw new ProviderError('unexpected', 200, 'no messages[0].id in the answer', null, true);
    return { id };
  }

  /**
   * Sends an approved template (server/messaging/README.md "Sending messages", Approved templates: the exact body).
   * `components` is left out when the template has neither parameters nor a media header; a header
   * goes first, as the provider lists a template's parts.
   */
  async sendTemplate(to: string, template: TProviderTemplateSend): Promise<{ id: string }> {
    const components: unknown[] = [];
    if (template.header) {
      const { kind, id, fileName } = template.header;
      const media = { id, ...(kind === 'document' && fileName ? { filename: fileName } : {}) };
      components.push({ type: 'header', parameters: [{ type: kind, [kind]: media }] });
    }
    if (template.params.length) components.push({ type: 'body', parameters: template.params.map((text) => ({ type: 'text', text })) });
    const payload = {
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to,
      type: 'template',
      template: { name: template.name, language: { code: template.language }, ...(components.length ? { components } : {}) },
    };
    return this.messageIdOf(await this.request('POST', '/messages', payload));
  }

  /**
   * Reacts to a message the client sent (server/messaging/README.md "Reactions"): an empty emoji takes the firm's
   * reaction away. The provider takes reactions only to messages of the last 30 days.
   */
  async sendReaction(to: string, reaction: { messageId: string; emoji: string }): Promise<{ id: string }> {
    const payload = {
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to,
      type: 'reaction',
      reaction: { message_id: reaction.messageId, emoji: reaction.emoji },
    };
    return this.messageIdOf(await this.request('POST', '/messages', payload));
  }

  /** A question with up to three quick-reply buttons (server/messaging/README.md "Quick-reply buttons"); free text's 24-hour rule applies. */
  async sendButtons(to: string, question: { body: string; buttons: { id: string; title: string }[] }): Promise<{ id: string }> {
    const payload = {
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to,
      type: 'interactive',
      interactive: {
        type: 'button',
        body: { text: question.body },
        action: { buttons: question.buttons.map(({ id, title }) => ({ type: 'reply', reply: { id, title } })) },
      },
    };
    return this.messageIdOf(await this.request('POST', '/messages', payload));
  }

  /**
   * Marks a message the client sent as read on their phone (the blue ticks; server/messaging/README.md "Read
   * receipts"), and with it every earlier one in that chat. The provider answers `{success: true}`.
   */
  async markRead(messageId: string): Promise<void> {
    const answer = await this.request('POST', '/messages', { messaging_product: 'whatsapp', status: 'read', message_id: messageId });
    if ((answer as { success?: unknown } | null)?.success !== true) throw new ProviderError('unexpected', 200, 'no success in the answer');
  }

  /**
   * Every template the provider lists, following every page: the provider's own shape
   * (`{waba_templates, offset, total}`, paged by offset) and the cloud API's (`{data, paging.next}`;
   * a next page is fetched from the provider's host, never another, so the key goes nowhere else).
   */
  async listTemplates(templatesPath: string): Promise<TProviderTemplate[]> {
    const templates: TProviderTemplate[] = [];
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
        url = onProviderHost(this.baseUrl, new URL(next, this.baseUrl).toString());
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

  /** Where the provider holds a media file: `GET /{media_id}` → `{url, mime_type, sha256, file_size}`. */
  async getMediaInfo(mediaId: string): Promise<TMediaInfo> {
    if (!/^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/.test(mediaId)) throw new ProviderError('bad_request', null, 'not a media id');
    const answer = (await this.request('GET', `/${encodeURIComponent(mediaId)}`)) as Record<string, unknown> | null;
    const url = answer?.url;
    if (typeof url !== 'string' || !URL.canParse(url)) throw new ProviderError('unexpected', 200, 'no media url in the answer');
    const text = (v: unknown) => (typeof v === 'string' && v ? v : null);
    const size =
      typeof answer?.file_size === 'number' ? answer.file_size : typeof answer?.file_size === 'string' ? Number(answer.file_size) : NaN;
    return {
      url,
      mimeType: text(answer?.mime_type),
      sha256: text(answer?.sha256),
      fileSize: Number.isSafeInteger(size) && size >= 0 ? size : null,
    };
  }

  /**
   * Streams a media file. The url's scheme and host are replaced by the provider's (server/media/README.md "Files"):
   * the key is sent to the provider only, whatever host the answer named. Fails when no byte has
   * arrived for MEDIA_IDLE_TIMEOUT_MS, or when `deadline` aborts; the caller consumes the body.
   */
  async downloadMedia(url: string, options: { deadline?: AbortSignal } = {}): Promise<TMediaDownload> {
    if (!this.apiKey) throw new ProviderError('not_configured');
    const target = onProviderHost(this.baseUrl, url);
    const idle = new IdleAbort(this.timeoutMs, MEDIA_IDLE_TIMEOUT_MS);
    const signal = options.deadline ? AbortSignal.any([idle.signal, options.deadline]) : idle.signal;
    let res: Response;
    try {
      res = await fetch(target, { headers: { 'PROVIDER-API-KEY': this.apiKey }, signal, redirect: 'manual' });
    } catch {
      idle.stop();
      throw new ProviderError(idle.fired || options.deadline?.aborted ? 'timeout' : 'network');
    }
    if (isRedirect(res.status)) {
      idle.stop();
      await res.body?.cancel();
      throw redirectError(res);
    }
    if (!res.ok || !res.body) {
      const json: unknown = await res.json().catch(() => null);
      idle.stop();
      throw new ProviderError(kindForStatus(res.status), res.status, extractProviderDetail(json), extractProviderCode(json));
    }
    const length = Number(res.headers.get('content-length'));
    const body = Readable.fromWeb(res.body as WebReadableStream<Uint8Array>);
    async function* chunks() {
      try {
        for await (const chunk of body) {
          idle.touch();
          yield chunk;
        }
      } catch {
        throw new ProviderError(idle.fired || options.deadline?.aborted ? 'timeout' : 'network', res.status);
      } finally {
        idle.stop();
      }
    }
    return { body: chunks(), contentLength: Number.isSafeInteger(length) && length >= 0 ? length : null };
  }

  /**
   * Uploads a file for sending: `POST /media` (multipart: `file`, `type`, `messaging_product`) → `{id}`.
   * The body is streamed from `source`, never held whole.
   */
  async uploadMedia(
    source: AsyncIterable<Uint8Array>,
    file: { mimeType: string; fileName: string; size: number },
  ): Promise<{ id: string }> {
    if (!this.apiKey) throw new ProviderError('not_configured');
    const boundary = `----firmchat${randomBytes(12).toString('hex')}`;
    const quoted = file.fileName.replace(/["\\\r\n]/g, '_');
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="messaging_product"\r\n\r\nwhatsapp\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="type"\r\n\r\n${file.mimeType}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${quoted}"\r\nContent-Type: ${file.mimeType}\r\n\r\n`,
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    async function* body() {
      yield head;
      yield* source;
      yield tail;
    }
    // node:http rather than fetch: it writes each piece as the socket drains and lets it go, where
    // fetch's body handling kept about the whole file alive at once (npm run bench, part 7).
    const target = new URL(`${this.baseUrl}/media`);
    const request = (target.protocol === 'https:' ? https : http).request(target, {
      method: 'POST',
      headers: {
        'PROVIDER-API-KEY': this.apiKey,
        accept: 'application/json',
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(head.length + file.size + tail.length),
      },
    });
    let timedOut = false;
    // node:http follows no redirect; a 3xx answer is refused below like any other non-2xx.
    request.setTimeout(MEDIA_IDLE_TIMEOUT_MS, () => {
      timedOut = true;
      request.destroy();
    });
    const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
      request.once('response', (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (part: string) => (text = text.length < 65_536 ? text + part : text));
        res.once('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.once('error', reject);
      });
      request.once('error', reject);
    });
    answered.catch(() => undefined); // awaited below; a refusal mid-upload also ends the pipeline
    let status: number;
    let text: string;
    try {
      await pipeline(Readable.from(body()), request).catch(async (error: unknown) => {
        // The provider may answer (a 4xx) and close before taking the whole file: its answer wins.
        if (
          !(await answered.then(
            () => true,
            () => false,
          ))
        )
          throw error;
      });
      ({ status, text } = await answered);
    } catch {
      throw new ProviderError(timedOut ? 'timeout' : 'network');
    }
    const json = parseAnswer(status, text);
    const id = (json as { id?: unknown } | null)?.id;
    if (typeof id !== 'string' || !id) throw new ProviderError('unexpected', status, 'no media id in the answer');
    return { id };
  }

  /** Sends an uploaded file by its media id, with a caption (not for audio) and a document's file name. */
  async sendMedia(to: string, media: { kind: TMediaSendKind; id: string; caption?: string; fileName?: string }): Promise<{ id: string }> {
    const object: Record<string, string> = { id: media.id };
    if (media.caption && media.kind !== 'audio') object.caption = media.caption;
    if (media.fileName && media.kind === 'document') object.filename = media.fileName;
    const payload = { messaging_product: 'whatsapp', recipient_type: 'individual', to, type: media.kind, [media.kind]: object };
    return this.messageIdOf(await this.request('POST', '/messages', payload));
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

  /**
   * One JSON request. Redirects are never followed (the key header would go with them). A POST
   * whose answer is lost after it may have been written — a timeout, a reset connection, a 2xx
   * whose body broke off, any 5xx (the provider, or a proxy in front of it, may fail after the
   * provider acted) — is an error with `outcomeUnknown`: the provider may have acted on it.
   * Only a 4xx (a refusal) or a connection that was never made proves nothing was sent
   * (server/decisions/0014-unknown-outcome-is-not-failed.md).
   */
  private async requestUrl(method: 'GET' | 'POST', url: string, body?: unknown): Promise<unknown> {
    if (!this.apiKey) throw new ProviderError('not_configured');
    const mayHaveActed = method === 'POST';
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
        redirect: 'manual',
      });
    } catch (error) {
      const name = (error as Error).name;
      const timedOut = name === 'TimeoutError' || name === 'AbortError';
      throw new ProviderError(timedOut ? 'timeout' : 'network', null, null, null, mayHaveActed && (timedOut || !neverConnected(error)));
    }
    if (isRedirect(res.status)) {
      await res.body?.cancel();
      throw redirectError(res);
    }
    // A 5xx is no refusal: whoever answered it may have failed after the provider took the message.
    const notRefused = res.ok || res.status >= 500;
    let text: string;
    try {
      text = await res.text();
    } catch (error) {
      const kind = (error as Error).name === 'TimeoutError' ? 'timeout' : 'network';
      throw new ProviderError(kind, res.status, null, null, mayHaveActed && notRefused);
    }
    try {
      return parseAnswer(res.status, text);
    } catch (error) {
      if (error instanceof ProviderError && mayHaveActed && notRefused)
        throw new ProviderError(error.kind, error.status, error.detail, error.code, true);
      throw error;
    }
  }
}
