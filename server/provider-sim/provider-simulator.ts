import { createHmac, randomBytes } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';

// A local stand-in for the messaging provider, over real HTTP, for development, e2e tests and
// benchmarks. It checks PROVIDER-API-KEY, validates the send body, answers like the cloud API,
// serves the business profile, and posts signed receipts (and inbound texts) to the app's webhook,
// like the real provider: a little later, and sometimes out of order.

export type TScriptedResponse =
  | { status: number; shape?: 'cloud' | 'onprem'; details?: string; title?: string; body?: unknown }
  | { hang: true };

export type TRecordedRequest = { method: string; path: string; apiKey: string | undefined; contentType: string | undefined; body: unknown };

export type TSimulatorOptions = {
  port?: number;
  host?: string;
  apiKey: string;
  profilePath?: string;
  /** Where receipts and inbound texts are posted; none: receipts are not sent. */
  webhookUrl?: string;
  webhookSecret?: string;
  /** Delays after the send answer for sent, delivered, read. */
  receiptDelaysMs?: [number, number, number];
  /** Chance that a message's receipts are posted in a shuffled order. */
  outOfOrderRate?: number;
  autoReceipts?: boolean;
  /** Post the given receipts and wait for the webhook's answer before answering the send (the race of SPEC §3). */
  receiptsBeforeAnswer?: ('sent' | 'delivered' | 'read')[];
  /** Wait this long before answering a send (to watch the pending state). */
  answerDelayMs?: number;
  verifiedName?: string;
  qualityRating?: string;
  /** The template catalogue served at templatesPath (default: a small approved set and one pending). */
  templates?: TSimTemplate[];
  templatesPath?: string;
  /** 'waba': the provider's own listing ({waba_templates}, paged by offset); 'cloud': {data, paging.next}. */
  templateShape?: 'waba' | 'cloud';
  templatePageSize?: number;
  /**
   * The 24-hour rule: free text to a number that has not written (sendInbound / markInbound) in the
   * last 24 hours is accepted and then fails with 131047 ('cloud'), or is refused 400 with 470 ('onprem').
   */
  enforceWindow?: boolean;
  apiMode?: 'cloud' | 'onprem';
};

export type TSimTemplate = { name: string; language: string; status: string; category: string; body: string };

const DEFAULT_TEMPLATES: TSimTemplate[] = [
  { name: 'hello_world', language: 'en_US', status: 'APPROVED', category: 'UTILITY', body: 'Hello World' },
  { name: 'appointment_reminder', language: 'en_GB', status: 'APPROVED', category: 'UTILITY', body: 'Hello {{1}}, this is a reminder of your appointment with {{2}} on {{3}}. Reply here to confirm or to rearrange.' },
  { name: 'document_request', language: 'en_GB', status: 'APPROVED', category: 'UTILITY', body: 'Hello {{1}}, to move {{2}} forward we need some documents from you. Please reply to this message so we can tell you what to send.' },
  { name: 'fee_update', language: 'en_GB', status: 'PENDING', category: 'UTILITY', body: 'Hello {{1}}, your fee estimate has changed.' },
];

const WINDOW_MS = 24 * 60 * 60 * 1000;
const WINDOW_DETAILS = 'Message failed to send because more than 24 hours have passed since the customer last replied to this number.';

const ZTo = z.string().regex(/^\d{8,15}$/, 'to must be 8-15 digits, no +');
const ZSendBody = z.union([
  z
    .object({
      messaging_product: z.literal('whatsapp'),
      recipient_type: z.literal('individual'),
      to: ZTo,
      type: z.literal('text'),
      text: z.object({ body: z.string().min(1).max(4096), preview_url: z.literal(false) }).strict(),
    })
    .strict(),
  z
    .object({
      messaging_product: z.literal('whatsapp'),
      recipient_type: z.literal('individual'),
      to: ZTo,
      type: z.literal('template'),
      template: z
        .object({
          name: z.string().min(1),
          language: z.object({ code: z.string().min(1) }).strict(),
          components: z
            .array(z.object({ type: z.literal('body'), parameters: z.array(z.object({ type: z.literal('text'), text: z.string().min(1) }).strict()).min(1) }).strict())
            .length(1)
            .optional(),
        })
        .strict(),
    })
    .strict(),
]);

function errorBody(status: number, shape: 'cloud' | 'onprem', details: string | undefined, title: string, code = status): unknown {
  if (shape === 'onprem') return { errors: [{ code, title, ...(details ? { details } : {}) }], meta: { api_status: 'stable' } };
  return {
    error: {
      message: title,
      type: 'OAuthException',
      code,
      ...(details ? { error_data: { messaging_product: 'whatsapp', details } } : {}),
      fbtrace_id: randomBytes(8).toString('hex'),
    },
  };
}

const TITLES: Record<number, string> = {
  400: 'Invalid parameter',
  401: 'Invalid API key',
  403: 'Forbidden',
  404: 'Phone number not found',
  429: 'Too many requests',
  500: 'Internal error',
  503: 'Service unavailable',
};

export class ProviderSimulator {
  readonly requests: TRecordedRequest[] = [];
  private readonly queue: TScriptedResponse[] = [];
  private readonly pending = new Set<Promise<unknown>>();
  private readonly hanging = new Set<ServerResponse>();
  private server: http.Server | undefined;
  private sequence = 0;
  /** When each number last wrote (the 24-hour rule). */
  private readonly lastInbound = new Map<string, number>();
  url = '';

  constructor(readonly options: TSimulatorOptions) {}

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(this.options.port ?? 0, this.options.host ?? '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** The next provider call (send or profile) answers this instead. */
  queueResponse(response: TScriptedResponse): void {
    this.queue.push(response);
  }

  configure(
    patch: Partial<
      Pick<
        TSimulatorOptions,
        'autoReceipts' | 'outOfOrderRate' | 'receiptDelaysMs' | 'receiptsBeforeAnswer' | 'webhookUrl' | 'answerDelayMs' | 'enforceWindow' | 'apiMode' | 'templates' | 'templateShape' | 'templatePageSize'
      >
    >,
  ): void {
    Object.assign(this.options, patch);
  }

  /** Resolves when every receipt or inbound post started so far has been answered. */
  async settle(): Promise<void> {
    while (this.pending.size) await Promise.allSettled([...this.pending]);
  }

  /** Records that a number wrote just now (opens its 24-hour window) without posting anything. */
  markInbound(from: string, at = Date.now()): void {
    this.lastInbound.set(from, at);
  }

  /** Posts a signed inbound text "from" a number to the app's webhook; returns the webhook's answer. */
  async sendInbound(from: string, body: string, name = 'Simulated Contact'): Promise<{ status: number; json: unknown; id: string }> {
    this.markInbound(from);
    const id = `wamid.SIMIN${Date.now()}${++this.sequence}`;
    const value = {
      messaging_product: 'whatsapp',
      metadata: { display_phone_number: '442079460000', phone_number_id: 'SIM' },
      contacts: [{ profile: { name }, wa_id: from }],
      messages: [{ from, id, timestamp: String(Math.floor(Date.now() / 1000)), type: 'text', text: { body } }],
    };
    return { ...(await this.postWebhook(value)), id };
  }

  /** Posts one status receipt for a message id (a `failed` one with the given error). */
  postReceipt(id: string, status: string, to = '000000000', error?: { code: number; title: string; details: string }): Promise<{ status: number; json: unknown }> {
    const errors = error ? [{ code: error.code, title: error.title, message: error.title, error_data: { details: error.details } }] : undefined;
    return this.postWebhook({
      messaging_product: 'whatsapp',
      metadata: { display_phone_number: '442079460000', phone_number_id: 'SIM' },
      statuses: [{ id, status, timestamp: String(Math.floor(Date.now() / 1000)), recipient_id: to, ...(errors ? { errors } : {}) }],
    });
  }

  /** The template list, one page of it, in the configured shape. */
  private templatePage(query: URLSearchParams): unknown {
    const all = (this.options.templates ?? DEFAULT_TEMPLATES).map((t) => ({
      name: t.name,
      language: t.language,
      status: t.status,
      category: t.category,
      components: [{ type: 'BODY', text: t.body }],
    }));
    const size = this.options.templatePageSize ?? 2;
    if ((this.options.templateShape ?? 'waba') === 'cloud') {
      const after = Number(query.get('after') ?? 0);
      const data = all.slice(after, after + size);
      const next = after + size < all.length ? `https://graph.example.invalid${this.options.templatesPath ?? '/v1/configs/templates'}?after=${after + size}` : undefined;
      return { data, paging: { cursors: { before: String(after), after: String(after + size) }, ...(next ? { next } : {}) } };
    }
    const offset = Number(query.get('offset') ?? 0);
    const limit = Number(query.get('limit') ?? size);
    return { count: Math.min(limit, Math.max(0, all.length - offset)), filters: {}, limit, offset, sort: ['id'], total: all.length, waba_templates: all.slice(offset, offset + limit) };
  }

  private postWebhook(value: unknown): Promise<{ status: number; json: unknown }> {
    const target = this.options.webhookUrl;
    if (!target) return Promise.resolve({ status: 0, json: null });
    const raw = JSON.stringify({ object: 'whatsapp_business_account', entry: [{ id: 'SIM', changes: [{ field: 'messages', value }] }] });
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.options.webhookSecret) headers['x-service-signature'] = `sha256=${createHmac('sha256', this.options.webhookSecret).update(raw).digest('hex')}`;
    const attempt = fetch(target, { method: 'POST', headers, body: raw }).then(
      async (res) => ({ status: res.status, json: await res.json().catch(() => null) }),
      () => ({ status: 0, json: null }),
    );
    this.pending.add(attempt);
    void attempt.finally(() => this.pending.delete(attempt));
    return attempt;
  }

  private scheduleReceipts(id: string, to: string, skip: Set<string>): void {
    const [sent, delivered, read] = this.options.receiptDelaysMs ?? [150, 500, 1000];
    let plan: [string, number][] = [['sent', sent], ['delivered', delivered], ['read', read]];
    if (Math.random() < (this.options.outOfOrderRate ?? 0.2)) {
      const delays = plan.map(([, d]) => d).sort(() => Math.random() - 0.5);
      plan = plan.map(([status], i) => [status, delays[i]!]);
    }
    for (const [status, delay] of plan) {
      if (skip.has(status)) continue;
      const timer = new Promise<void>((resolve) => setTimeout(resolve, delay)).then(() => this.postReceipt(id, status, to));
      this.pending.add(timer);
      void timer.finally(() => this.pending.delete(timer));
    }
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = text;
    }
    const path = (req.url ?? '/').split('?')[0]!;
    const query = new URLSearchParams((req.url ?? '').split('?')[1] ?? '');
    const send = (status: number, json: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(json));
    };

    if (path.startsWith('/__sim/')) return this.handleControl(req.method ?? 'GET', path, body, send);

    const apiKey = req.headers['provider-api-key'];
    this.requests.push({ method: req.method ?? 'GET', path, apiKey: typeof apiKey === 'string' ? apiKey : undefined, contentType: req.headers['content-type'], body });

    const scripted = this.queue.shift();
    if (scripted) {
      if ('hang' in scripted) {
        this.hanging.add(res);
        res.on('close', () => this.hanging.delete(res));
        return;
      }
      const title = scripted.title ?? TITLES[scripted.status] ?? 'Error';
      return send(scripted.status, scripted.body ?? errorBody(scripted.status, scripted.shape ?? 'cloud', scripted.details, title));
    }
    if (apiKey !== this.options.apiKey) return send(401, errorBody(401, 'cloud', 'The API key is missing or invalid.', TITLES[401]!));

    const profilePath = this.options.profilePath ?? '/whatsapp_business_profile';
    if (req.method === 'GET' && path === profilePath) {
      return send(200, {
        verified_name: this.options.verifiedName ?? 'Ashdown & Vale Solicitors',
        quality_rating: this.options.qualityRating ?? 'GREEN',
        display_phone_number: '+44 20 7946 0000',
        about: 'Solicitors. Messages are answered in office hours.',
      });
    }
    if (req.method === 'GET' && path === (this.options.templatesPath ?? '/v1/configs/templates')) return send(200, this.templatePage(query));
    if (req.method === 'POST' && path === '/messages') {
      const parsed = ZSendBody.safeParse(body);
      const shape = this.options.apiMode ?? 'cloud';
      if (!parsed.success) {
        const details = parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');
        return send(400, errorBody(400, shape, details, TITLES[400]!));
      }
      let windowClosed = false;
      if (parsed.data.type === 'template') {
        const sent = parsed.data.template;
        const known = (this.options.templates ?? DEFAULT_TEMPLATES).find((t) => t.name === sent.name && t.language === sent.language.code && t.status === 'APPROVED');
        if (!known) return send(400, errorBody(400, shape, `Template name does not exist in the translation (${sent.name}, ${sent.language.code}).`, 'Template name does not exist in the translation', 132001));
        const expected = Math.max(0, ...[...known.body.matchAll(/\{\{(\d+)\}\}/g)].map((m) => Number(m[1])));
        const given = sent.components?.[0]?.parameters.length ?? 0;
        if (given !== expected) return send(400, errorBody(400, shape, `body: number of localizable_params (${given}) does not match the expected number of params (${expected})`, 'Number of parameters does not match the expected number of params', 132000));
      } else if (this.options.enforceWindow) {
        windowClosed = Date.now() - (this.lastInbound.get(parsed.data.to) ?? 0) > WINDOW_MS;
        if (windowClosed && shape === 'onprem') return send(400, errorBody(400, 'onprem', WINDOW_DETAILS, 'Message failed to send because more than 24 hours have passed since the customer last replied to this number', 470));
      }
      const id = `wamid.SIM${Date.now().toString(36)}${(++this.sequence).toString(36)}${randomBytes(4).toString('hex')}`;
      if (this.options.answerDelayMs) await new Promise((resolve) => setTimeout(resolve, this.options.answerDelayMs));
      if (windowClosed) {
        // The cloud API accepts it, then reports the failure as a receipt.
        const timer = new Promise<void>((resolve) => setTimeout(resolve, (this.options.receiptDelaysMs ?? [150])[0])).then(() =>
          this.postReceipt(id, 'failed', parsed.data.to, { code: 131047, title: 'Re-engagement message', details: WINDOW_DETAILS }),
        );
        this.pending.add(timer);
        void timer.finally(() => this.pending.delete(timer));
        return send(200, { messaging_product: 'whatsapp', contacts: [{ input: parsed.data.to, wa_id: parsed.data.to }], messages: [{ id }] });
      }
      const early = new Set(this.options.receiptsBeforeAnswer ?? []);
      for (const status of early) await this.postReceipt(id, status, parsed.data.to);
      if (this.options.autoReceipts ?? true) this.scheduleReceipts(id, parsed.data.to, early);
      return send(200, { messaging_product: 'whatsapp', contacts: [{ input: parsed.data.to, wa_id: parsed.data.to }], messages: [{ id }] });
    }
    return send(404, errorBody(404, 'cloud', `No route ${req.method} ${path}`, 'Unknown path'));
  }

  private async handleControl(method: string, path: string, body: unknown, send: (status: number, json: unknown) => void): Promise<void> {
    const input = (body ?? {}) as Record<string, unknown>;
    if (method === 'POST' && path === '/__sim/next') {
      this.queueResponse(input as TScriptedResponse);
      return send(200, { ok: true, queued: this.queue.length });
    }
    if (method === 'POST' && path === '/__sim/inbound') {
      if (typeof input.from !== 'string' || typeof input.body !== 'string') return send(400, { ok: false, error: 'from and body are required' });
      return send(200, await this.sendInbound(input.from, input.body, typeof input.name === 'string' ? input.name : undefined));
    }
    if (method === 'POST' && path === '/__sim/config') {
      this.configure(input);
      return send(200, { ok: true });
    }
    if (method === 'GET' && path === '/__sim/requests') return send(200, this.requests);
    if (method === 'DELETE' && path === '/__sim/requests') {
      this.requests.length = 0;
      return send(200, { ok: true });
    }
    return send(404, { ok: false, error: 'unknown control path' });
  }
}

export function startProviderSimulator(options: TSimulatorOptions): Promise<ProviderSimulator> {
  return new ProviderSimulator(options).start();
}
