import { createHash, createHmac, randomBytes } from 'node:crypto';
import busboy from 'busboy';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { z } from 'zod';
import { sha256Hex as readSha256 } from '../../core/sha256-hex';

// A local stand-in for the messaging provider, over real HTTP, for development, e2e tests and
// benchmarks. It checks PROVIDER-API-KEY, validates the send body, answers like the cloud API,
// serves the business profile, and posts signed receipts (and inbound texts) to the app's webhook,
// like the real provider: a little later, and sometimes out of order.

/** `headers`: e.g. a `location` for a redirect the app must not follow. */
export type TScriptedResponse =
  | { status: number; shape?: 'cloud' | 'onprem'; details?: string; title?: string; body?: unknown; headers?: Record<string, string> }
  | { hang: true };

export type TRecordedRequest = {
  method: string;
  path: string;
  query: string;
  apiKey: string | undefined;
  contentType: string | undefined;
  body: unknown;
};

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
  /** Sleep between ~64 KB pieces of a media download (to cut a download off mid-file in tests). */
  mediaChunkDelayMs?: number;
};

/** A file the simulator holds: given bytes, or generated ones (never held whole) of a given size. */
type TSimMedia = {
  id: string;
  mimeType: string;
  fileName: string | null;
  size: number;
  sha256Hex: string;
  advertisedSha256Hex: string;
  bytes: Buffer | null;
};

export type TInboundKindInput = {
  kind?:
    | 'text'
    | 'image'
    | 'video'
    | 'document'
    | 'audio'
    | 'voice'
    | 'sticker'
    | 'location'
    | 'contacts'
    | 'button'
    | 'button_reply'
    | 'list_reply'
    | 'reply'
    | 'reaction'
    | 'edit'
    | 'revoke'
    | 'echo';
  /** The client's number (not needed for an echo). */
  from?: string;
  name?: string;
  body?: string;
  /** Media: the bytes (base64), or a size to generate; the type, a document's name, a wrong hash to announce. */
  bytesBase64?: string;
  size?: number;
  mimeType?: string;
  fileName?: string;
  caption?: string;
  sha256?: string;
  latitude?: number;
  longitude?: number;
  address?: string;
  url?: string;
  contacts?: { name: string; phones: string[] }[];
  text?: string;
  title?: string;
  payload?: string;
  replyId?: string;
  contextId?: string;
  targetId?: string;
  emoji?: string;
  /** echo: the client's number the firm's phone wrote to. */
  to?: string;
};

const MEDIA_PIECE = 64 * 1024;
/** A generated file's size (its bytes are made on the fly): up to 200 MB. */
const ZSimMediaSize = z
  .number()
  .int()
  .min(0)
  .max(200 * 1024 * 1024)
  .optional();
const DEFAULT_MIME: Record<string, string> = {
  image: 'image/jpeg',
  video: 'video/mp4',
  document: 'application/pdf',
  audio: 'audio/ogg; codecs=opus',
  voice: 'audio/ogg; codecs=opus',
  sticker: 'image/webp',
};
const FIRM_DIGITS = '442079460000';

/** Deterministic bytes for a generated file, piece by piece (the same every time for one id). */
function* generatedPieces(id: string, size: number): Generator<Buffer> {
  const pattern = Buffer.alloc(MEDIA_PIECE);
  for (let i = 0; i < MEDIA_PIECE; i++) pattern[i] = (i * 31 + id.charCodeAt(i % id.length)) & 0xff;
  for (let sent = 0; sent < size; sent += MEDIA_PIECE) yield pattern.subarray(0, Math.min(MEDIA_PIECE, size - sent));
}

export type TSimTemplate = { name: string; language: string; status: string; category: string; body: string };

const DEFAULT_TEMPLATES: TSimTemplate[] = [
  { name: 'hello_world', language: 'en_US', status: 'APPROVED', category: 'UTILITY', body: 'Hello World' },
  {
    name: 'appointment_reminder',
    language: 'en_GB',
    status: 'APPROVED',
    category: 'UTILITY',
    body: 'Hello {{1}}, this is a reminder of your appointment with {{2}} on {{3}}. Reply here to confirm or to rearrange.',
  },
  {
    name: 'document_request',
    language: 'en_GB',
    status: 'APPROVED',
    category: 'UTILITY',
    body: 'Hello {{1}}, to move {{2}} forward we need some documents from you. Please reply to this message so we can tell you what to send.',
  },
  { name: 'fee_update', language: 'en_GB', status: 'PENDING', category: 'UTILITY', body: 'Hello {{1}}, your fee estimate has changed.' },
];

const ZInboundKind = z
  .object({
    kind: z.enum([
      'text',
      'image',
      'video',
      'document',
      'audio',
      'voice',
      'sticker',
      'location',
      'contacts',
      'button',
      'button_reply',
      'list_reply',
      'reply',
      'reaction',
      'edit',
      'revoke',
      'echo',
    ]),
    from: z
      .string()
      .regex(/^\d{8,15}$/, 'from must be 8-15 digits')
      .optional(),
    name: z.string().optional(),
    body: z.string().optional(),
    bytesBase64: z.string().optional(),
    size: ZSimMediaSize,
    mimeType: z.string().optional(),
    fileName: z.string().optional(),
    caption: z.string().optional(),
    sha256: z.string().optional(),
    latitude: z.number().optional(),
    longitude: z.number().optional(),
    address: z.string().optional(),
    url: z.string().optional(),
    contacts: z.array(z.object({ name: z.string(), phones: z.array(z.string()) })).optional(),
    text: z.string().optional(),
    title: z.string().optional(),
    payload: z.string().optional(),
    replyId: z.string().optional(),
    contextId: z.string().optional(),
    targetId: z.string().optional(),
    emoji: z.string().optional(),
    to: z.string().optional(),
  })
  .refine((input) => input.kind === 'echo' || input.from !== undefined, { message: 'from is required', path: ['from'] })
  .refine((input) => !input.caption || !['audio', 'voice', 'sticker'].includes(input.kind), {
    message: 'audio, voice notes and stickers have no caption',
    path: ['caption'],
  })
  .refine((input) => input.sha256 === undefined || readSha256(input.sha256) !== null, {
    message: 'sha256 must be 64 hex digits or base64',
    path: ['sha256'],
  });

const WINDOW_MS = 24 * 60 * 60 * 1000;
const WINDOW_DETAILS = 'Message failed to send because more than 24 hours have passed since the customer last replied to this number.';

const ZTo = z.string().regex(/^\d{8,15}$/, 'to must be 8-15 digits, no +');
const ZMediaRef = z.object({ id: z.string().min(1) }).strict();
const ZCaption = z.string().min(1).max(1024).optional();
function mediaSend<K extends 'image' | 'video' | 'audio' | 'document', T extends z.ZodType>(kind: K, object: T) {
  return z
    .object({
      messaging_product: z.literal('whatsapp'),
      recipient_type: z.literal('individual'),
      to: ZTo,
      type: z.literal(kind),
      [kind]: object,
    } as {
      messaging_product: z.ZodLiteral<'whatsapp'>;
      recipient_type: z.ZodLiteral<'individual'>;
      to: typeof ZTo;
      type: z.ZodLiteral<K>;
    } & Record<K, T>)
    .strict();
}
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
            .array(
              z
                .object({
                  type: z.literal('body'),
                  parameters: z.array(z.object({ type: z.literal('text'), text: z.string().min(1) }).strict()).min(1),
                })
                .strict(),
            )
            .length(1)
            .optional(),
        })
        .strict(),
    })
    .strict(),
  mediaSend('image', ZMediaRef.extend({ caption: ZCaption })),
  mediaSend('video', ZMediaRef.extend({ caption: ZCaption })),
  mediaSend('audio', ZMediaRef),
  mediaSend('document', ZMediaRef.extend({ caption: ZCaption, filename: z.string().min(1).max(255).optional() })),
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
  /** Every message the simulator accepted (whether or not its answer reached the app). */
  readonly accepted: { id: string; to: string }[] = [];
  private readonly requestWaiters = new Set<{ test: (r: TRecordedRequest) => boolean; resolve: (r: TRecordedRequest) => void }>();
  /** While set, `POST /media` answers only when it resolves (an upload the app is still waiting on). */
  private uploadGate: Promise<void> | null = null;
  private readonly queue: TScriptedResponse[] = [];
  private readonly pending = new Set<Promise<unknown>>();
  private readonly hanging = new Set<ServerResponse>();
  private server: http.Server | undefined;
  private sequence = 0;
  /** When each number last wrote (the 24-hour rule). */
  private readonly lastInbound = new Map<string, number>();
  private readonly media = new Map<string, TSimMedia>();
  url = '';

  constructor(readonly options: TSimulatorOptions) {}

  async start(): Promise<this> {
    // An error in one request fails that request (500), never the process running the simulator.
    this.server = http.createServer(
      (req, res) =>
        void this.handle(req, res).catch(() => {
          if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { message: 'simulator error', code: 500 } }));
        }),
    );
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

  /** Resolves with the first recorded request (one already made, or the next) that `test` accepts. */
  waitForRequest(test: (request: TRecordedRequest) => boolean): Promise<TRecordedRequest> {
    const made = this.requests.find(test);
    if (made) return Promise.resolve(made);
    return new Promise((resolve) => this.requestWaiters.add({ test, resolve }));
  }

  /** Holds the answers to media uploads until the returned function is called. */
  holdUploads(): () => void {
    let release!: () => void;
    this.uploadGate = new Promise<void>((resolve) => (release = resolve));
    return () => {
      this.uploadGate = null;
      release();
    };
  }

  private record(request: TRecordedRequest): void {
    this.requests.push(request);
    for (const waiter of [...this.requestWaiters]) {
      if (!waiter.test(request)) continue;
      this.requestWaiters.delete(waiter);
      waiter.resolve(request);
    }
  }

  configure(
    patch: Partial<
      Pick<
        TSimulatorOptions,
        | 'autoReceipts'
        | 'outOfOrderRate'
        | 'receiptDelaysMs'
        | 'receiptsBeforeAnswer'
        | 'webhookUrl'
        | 'answerDelayMs'
        | 'enforceWindow'
        | 'apiMode'
        | 'templates'
        | 'templateShape'
        | 'templatePageSize'
        | 'mediaChunkDelayMs'
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

  /**
   * Posts a signed inbound message of any kind (or an echo from the firm's phone) to the app's
   * webhook, shaped as the real provider shapes it; media is registered first and announced by id.
   */
  async sendInboundKind(input: TInboundKindInput): Promise<{ status: number; json: unknown; id: string; mediaId?: string }> {
    const kind = input.kind ?? 'text';
    const id = `wamid.SIMIN${Date.now()}${++this.sequence}`;
    const timestamp = String(Math.floor(Date.now() / 1000));
    const context = input.contextId ? { context: { from: FIRM_DIGITS, id: input.contextId } } : {};
    let item: Record<string, unknown>;
    let mediaId: string | undefined;
    if (kind === 'image' || kind === 'video' || kind === 'document' || kind === 'audio' || kind === 'voice' || kind === 'sticker') {
      const mimeType = input.mimeType ?? DEFAULT_MIME[kind]!;
      const media = await this.addMedia({
        bytes: input.bytesBase64 !== undefined ? Buffer.from(input.bytesBase64, 'base64') : undefined,
        size: input.size ?? 1024,
        mimeType,
        fileName: input.fileName,
        sha256: input.sha256,
      });
      mediaId = media.id;
      const type = kind === 'voice' ? 'audio' : kind;
      const object: Record<string, unknown> = { id: media.id, mime_type: mimeType, sha256: media.sha256Base64 };
      if (input.caption && type !== 'audio' && type !== 'sticker') object.caption = input.caption;
      if (type === 'document') object.filename = input.fileName ?? 'document.pdf';
      if (type === 'audio') object.voice = kind === 'voice';
      if (type === 'sticker') object.animated = false;
      item = { type, [type]: object };
    } else if (kind === 'location') {
      if (typeof input.latitude !== 'number' || typeof input.longitude !== 'number')
        throw new RangeError('latitude and longitude are required');
      item = {
        type: 'location',
        location: {
          latitude: input.latitude,
          longitude: input.longitude,
          ...(input.name ? { name: input.name } : {}),
          ...(input.address ? { address: input.address } : {}),
          ...(input.url ? { url: input.url } : {}),
        },
      };
    } else if (kind === 'contacts') {
      const contacts = (input.contacts ?? []).map((c) => ({
        name: { formatted_name: c.name, first_name: c.name.split(' ')[0] },
        phones: c.phones.map((phone) => ({ phone, type: 'CELL' })),
      }));
      if (!contacts.length) throw new RangeError('contacts are required');
      item = { type: 'contacts', contacts };
    } else if (kind === 'button') {
      item = {
        type: 'button',
        button: { payload: input.payload ?? input.text ?? 'button', text: input.text ?? input.title ?? 'OK' },
        ...context,
      };
    } else if (kind === 'button_reply' || kind === 'list_reply') {
      item = {
        type: 'interactive',
        interactive: { type: kind, [kind]: { id: input.replyId ?? 'choice', title: input.title ?? 'OK' } },
        ...context,
      };
    } else if (kind === 'reaction') {
      if (!input.targetId) throw new RangeError('targetId is required');
      item = { type: 'reaction', reaction: { message_id: input.targetId, emoji: input.emoji ?? '' } };
    } else if (kind === 'edit') {
      if (!input.targetId || input.body === undefined) throw new RangeError('targetId and body are required');
      item = { type: 'edit', edit: { original_message_id: input.targetId, message: { type: 'text', text: { body: input.body } } } };
    } else if (kind === 'revoke') {
      if (!input.targetId) throw new RangeError('targetId is required');
      item = { type: 'revoke', revoke: { original_message_id: input.targetId } };
    } else if (kind === 'echo') {
      if (!input.to || input.body === undefined) throw new RangeError('to and body are required');
      const echo = { from: FIRM_DIGITS, to: input.to, id, timestamp, type: 'text', text: { body: input.body } };
      return {
        ...(await this.postWebhook(
          {
            messaging_product: 'whatsapp',
            metadata: { display_phone_number: FIRM_DIGITS, phone_number_id: 'SIM' },
            message_echoes: [echo],
          },
          'smb_message_echoes',
        )),
        id,
      };
    } else {
      if (input.body === undefined) throw new RangeError('body is required');
      item = { type: 'text', text: { body: input.body }, ...(kind === 'reply' ? context : {}) };
    }
    const from = input.from!;
    this.markInbound(from);
    const value = {
      messaging_product: 'whatsapp',
      metadata: { display_phone_number: FIRM_DIGITS, phone_number_id: 'SIM' },
      contacts: [{ profile: { name: input.name ?? 'Simulated Contact' }, wa_id: from }],
      messages: [{ from, id, timestamp, ...item }],
    };
    return { ...(await this.postWebhook(value)), id, ...(mediaId ? { mediaId } : {}) };
  }

  /** Posts one status receipt for a message id (a `failed` one with the given error). */
  postReceipt(
    id: string,
    status: string,
    to = '000000000',
    error?: { code: number; title: string; details: string },
  ): Promise<{ status: number; json: unknown }> {
    const errors = error
      ? [{ code: error.code, title: error.title, message: error.title, error_data: { details: error.details } }]
      : undefined;
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
      const next =
        after + size < all.length
          ? `https://graph.example.invalid${this.options.templatesPath ?? '/v1/configs/templates'}?after=${after + size}`
          : undefined;
      return { data, paging: { cursors: { before: String(after), after: String(after + size) }, ...(next ? { next } : {}) } };
    }
    const offset = Number(query.get('offset') ?? 0);
    const limit = Number(query.get('limit') ?? size);
    return {
      count: Math.min(limit, Math.max(0, all.length - offset)),
      filters: {},
      limit,
      offset,
      sort: ['id'],
      total: all.length,
      waba_templates: all.slice(offset, offset + limit),
    };
  }

  private postWebhook(value: unknown, field = 'messages'): Promise<{ status: number; json: unknown }> {
    const target = this.options.webhookUrl;
    if (!target) return Promise.resolve({ status: 0, json: null });
    const raw = JSON.stringify({ object: 'whatsapp_business_account', entry: [{ id: 'SIM', changes: [{ field, value }] }] });
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.options.webhookSecret)
      headers['x-service-signature'] = `sha256=${createHmac('sha256', this.options.webhookSecret).update(raw).digest('hex')}`;
    const attempt = fetch(target, { method: 'POST', headers, body: raw }).then(
      async (res) => ({ status: res.status, json: (await res.json().catch(() => null)) as unknown }),
      () => ({ status: 0, json: null }),
    );
    this.pending.add(attempt);
    void attempt.finally(() => this.pending.delete(attempt));
    return attempt;
  }

  private scheduleReceipts(id: string, to: string, skip: Set<string>): void {
    const [sent, delivered, read] = this.options.receiptDelaysMs ?? [150, 500, 1000];
    let plan: [string, number][] = [
      ['sent', sent],
      ['delivered', delivered],
      ['read', read],
    ];
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
    const path = (req.url ?? '/').split('?')[0]!;
    // An upload is parsed as it streams; everything else is small JSON, read whole.
    const isUpload = req.method === 'POST' && path === '/media';
    const chunks: Buffer[] = [];
    if (!isUpload) for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = text;
    }
    const query = new URLSearchParams((req.url ?? '').split('?')[1] ?? '');
    const send = (status: number, json: unknown, headers: Record<string, string> = {}) => {
      // The app may have given up waiting (its timeout): nothing to answer.
      if (res.destroyed || res.headersSent) return;
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(json));
    };

    if (path.startsWith('/__sim/')) return this.handleControl(req.method ?? 'GET', path, body, send);

    const apiKey = req.headers['provider-api-key'];
    const recorded: TRecordedRequest = {
      method: req.method ?? 'GET',
      path,
      query: query.toString(),
      apiKey: typeof apiKey === 'string' ? apiKey : undefined,
      contentType: req.headers['content-type'],
      body,
    };
    this.record(recorded);

    const scripted = this.queue.shift();
    if (scripted) {
      if ('hang' in scripted) {
        this.hanging.add(res);
        res.on('close', () => this.hanging.delete(res));
        return;
      }
      const title = scripted.title ?? TITLES[scripted.status] ?? 'Error';
      if (isUpload) req.resume();
      return send(
        scripted.status,
        scripted.body ?? errorBody(scripted.status, scripted.shape ?? 'cloud', scripted.details, title),
        scripted.headers,
      );
    }
    if (apiKey !== this.options.apiKey) {
      if (isUpload) req.resume();
      return send(401, errorBody(401, 'cloud', 'The API key is missing or invalid.', TITLES[401]!));
    }
    if (isUpload) return this.receiveUpload(req, recorded, send);
    if (req.method === 'GET' && path === '/whatsapp_business/attachments/') {
      const media = this.media.get(query.get('mid') ?? '');
      if (!media) return send(404, errorBody(404, 'cloud', 'Media not found', 'Unknown media'));
      return this.streamMedia(res, media);
    }
    const mediaId = /^\/([A-Za-z0-9._-]+)$/.exec(path)?.[1];
    if (req.method === 'GET' && mediaId && this.media.has(mediaId)) {
      const media = this.media.get(mediaId)!;
      return send(200, {
        messaging_product: 'whatsapp',
        url: `https://lookaside.example.invalid/whatsapp_business/attachments/?mid=${media.id}&ext=${Date.now()}&hash=${randomBytes(6).toString('hex')}`,
        mime_type: media.mimeType,
        sha256: media.advertisedSha256Hex,
        file_size: media.size,
        id: media.id,
      });
    }

    const profilePath = this.options.profilePath ?? '/whatsapp_business_profile';
    if (req.method === 'GET' && path === profilePath) {
      return send(200, {
        verified_name: this.options.verifiedName ?? 'Ashdown & Vale Solicitors',
        quality_rating: this.options.qualityRating ?? 'GREEN',
        display_phone_number: '+44 20 7946 0000',
        about: 'Solicitors. Messages are answered in office hours.',
      });
    }
    if (req.method === 'GET' && path === (this.options.templatesPath ?? '/v1/configs/templates'))
      return send(200, this.templatePage(query));
    if (req.method === 'POST' && path === '/messages') {
      const parsed = ZSendBody.safeParse(body);
      const shape = this.options.apiMode ?? 'cloud';
      if (!parsed.success) {
        const details = parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');
        return send(400, errorBody(400, shape, details, TITLES[400]!));
      }
      let windowClosed = false;
      const sent = parsed.data as Record<string, unknown>;
      const mediaRef = sent[parsed.data.type] as { id?: string } | undefined;
      if (parsed.data.type !== 'text' && parsed.data.type !== 'template' && !this.media.has(mediaRef?.id ?? '')) {
        return send(400, errorBody(400, shape, `Media id ${mediaRef?.id} was not uploaded to this number.`, 'Media upload error', 131053));
      }
      if (parsed.data.type === 'template') {
        const sent = parsed.data.template;
        const known = (this.options.templates ?? DEFAULT_TEMPLATES).find(
          (t) => t.name === sent.name && t.language === sent.language.code && t.status === 'APPROVED',
        );
        if (!known)
          return send(
            400,
            errorBody(
              400,
              shape,
              `Template name does not exist in the translation (${sent.name}, ${sent.language.code}).`,
              'Template name does not exist in the translation',
              132001,
            ),
          );
        const expected = Math.max(0, ...[...known.body.matchAll(/\{\{(\d+)\}\}/g)].map((m) => Number(m[1])));
        const given = sent.components?.[0]?.parameters.length ?? 0;
        if (given !== expected)
          return send(
            400,
            errorBody(
              400,
              shape,
              `body: number of localizable_params (${given}) does not match the expected number of params (${expected})`,
              'Number of parameters does not match the expected number of params',
              132000,
            ),
          );
      } else if (this.options.enforceWindow) {
        windowClosed = Date.now() - (this.lastInbound.get(parsed.data.to) ?? 0) > WINDOW_MS;
        if (windowClosed && shape === 'onprem')
          return send(
            400,
            errorBody(
              400,
              'onprem',
              WINDOW_DETAILS,
              'Message failed to send because more than 24 hours have passed since the customer last replied to this number',
              470,
            ),
          );
      }
      const id = `wamid.SIM${Date.now().toString(36)}${(++this.sequence).toString(36)}${randomBytes(4).toString('hex')}`;
      // Accepted from here on: a slow answer (answerDelayMs) may reach an app that stopped waiting,
      // but the message goes and its receipts follow, as with the real provider.
      this.accepted.push({ id, to: parsed.data.to });
      // Receipts that beat the answer (README "Sending messages": early receipts) go first; a slow answer comes after them.
      const early = new Set(windowClosed ? [] : (this.options.receiptsBeforeAnswer ?? []));
      for (const status of early) await this.postReceipt(id, status, parsed.data.to);
      if (this.options.answerDelayMs) await new Promise((resolve) => setTimeout(resolve, this.options.answerDelayMs));
      if (windowClosed) {
        // The cloud API accepts it, then reports the failure as a receipt.
        const timer = new Promise<void>((resolve) => setTimeout(resolve, (this.options.receiptDelaysMs ?? [150])[0])).then(() =>
          this.postReceipt(id, 'failed', parsed.data.to, { code: 131047, title: 'Re-engagement message', details: WINDOW_DETAILS }),
        );
        this.pending.add(timer);
        void timer.finally(() => this.pending.delete(timer));
        return send(200, {
          messaging_product: 'whatsapp',
          contacts: [{ input: parsed.data.to, wa_id: parsed.data.to }],
          messages: [{ id }],
        });
      }
      if (this.options.autoReceipts ?? true) this.scheduleReceipts(id, parsed.data.to, early);
      return send(200, { messaging_product: 'whatsapp', contacts: [{ input: parsed.data.to, wa_id: parsed.data.to }], messages: [{ id }] });
    }
    if (req.method === 'GET' && mediaId)
      return send(
        404,
        errorBody(404, 'cloud', `Unsupported get request. Object with ID '${mediaId}' does not exist`, 'Unknown media', 100),
      );
    return send(404, errorBody(404, 'cloud', `No route ${req.method} ${path}`, 'Unknown path'));
  }

  /** Registers a file the provider holds (what a client sent, or a test's fixture). */
  async addMedia(input: {
    bytes?: Buffer;
    size?: number;
    mimeType: string;
    fileName?: string;
    sha256?: string;
  }): Promise<{ id: string; sha256Hex: string; advertisedSha256Hex: string; sha256Base64: string; size: number }> {
    const id = `7${Date.now().toString().slice(-9)}${String(++this.sequence).padStart(6, '0')}`;
    const bytes = input.bytes ?? null;
    const size = bytes ? bytes.length : Math.max(0, Math.floor(input.size ?? 0));
    const hash = createHash('sha256');
    if (bytes) hash.update(bytes);
    else {
      // A generated file may be gigabytes: hash it a megabyte at a time, so the simulator keeps
      // answering the app (downloads, sends) while a test registers it.
      let piecesSinceTurn = 0;
      for (const piece of generatedPieces(id, size)) {
        hash.update(piece);
        if (++piecesSinceTurn === 16) {
          piecesSinceTurn = 0;
          await nextTurn();
        }
      }
    }
    const sha256Hex = hash.digest('hex');
    const advertisedSha256Hex = input.sha256 !== undefined ? (readSha256(input.sha256) ?? sha256Hex) : sha256Hex;
    this.media.set(id, { id, mimeType: input.mimeType, fileName: input.fileName ?? null, size, sha256Hex, advertisedSha256Hex, bytes });
    // sha256Hex: the bytes' own hash; the advertised one (the webhook's base64, the media answer's hex) may differ on purpose.
    return { id, sha256Hex, advertisedSha256Hex, sha256Base64: Buffer.from(advertisedSha256Hex, 'hex').toString('base64'), size };
  }

  /** The bytes the simulator holds for a media id (uploads included), read whole: for tests of small files. */
  mediaBytes(id: string): Buffer | null {
    const media = this.media.get(id);
    if (!media) return null;
    return media.bytes ?? Buffer.concat([...generatedPieces(id, media.size)]);
  }

  private async streamMedia(res: ServerResponse, media: TSimMedia): Promise<void> {
    res.writeHead(200, { 'content-type': media.mimeType, 'content-length': String(media.size) });
    const pieces = media.bytes
      ? (function* (bytes: Buffer) {
          for (let i = 0; i < bytes.length; i += MEDIA_PIECE) yield bytes.subarray(i, i + MEDIA_PIECE);
        })(media.bytes)
      : generatedPieces(media.id, media.size);
    for (const piece of pieces) {
      if (res.destroyed) return;
      if (!res.write(piece)) {
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off('drain', done);
            res.off('close', done);
            resolve();
          };
          res.on('drain', done);
          res.on('close', done);
        });
      }
      if (this.options.mediaChunkDelayMs) await new Promise((resolve) => setTimeout(resolve, this.options.mediaChunkDelayMs));
    }
    res.end();
  }

  /** `POST /media`: multipart `file`, `type`, `messaging_product` → `{id}`, parsed as it streams. */
  private receiveUpload(req: IncomingMessage, recorded: TRecordedRequest, send: (status: number, json: unknown) => void): Promise<void> {
    return new Promise<void>((resolve) => {
      const fields: Record<string, string> = {};
      let file: { bytes: Buffer; fileName: string; mimeType: string } | null = null;
      let parser: busboy.Busboy;
      try {
        parser = busboy({ headers: req.headers, limits: { files: 1, fileSize: 101 * 1024 * 1024 } });
      } catch {
        req.resume();
        send(400, errorBody(400, 'cloud', 'Expected multipart/form-data', TITLES[400]!));
        return resolve();
      }
      // An upload cut off mid-body fails that request only: the stream errors are all handled here.
      let settled = false;
      const fail = () => {
        if (settled) return;
        settled = true;
        send(400, errorBody(400, 'cloud', 'Malformed or incomplete multipart body', TITLES[400]!));
        resolve();
      };
      req.on('error', fail);
      req.on('aborted', fail);
      parser.on('field', (name, value) => (fields[name] = value));
      parser.on('file', (name, stream, info) => {
        const parts: Buffer[] = [];
        stream.on('error', fail);
        stream.on('data', (part: Buffer) => parts.push(part));
        stream.on('end', () => {
          if (name === 'file') file = { bytes: Buffer.concat(parts), fileName: info.filename ?? '', mimeType: info.mimeType };
        });
      });
      parser.on('close', () => {
        if (settled) return;
        settled = true;
        void (async () => {
          await this.uploadGate;
          const got = file;
          recorded.body = {
            type: fields.type,
            messaging_product: fields.messaging_product,
            fileName: got?.fileName,
            mimeType: got?.mimeType,
            size: got?.bytes.length,
            sha256: got ? createHash('sha256').update(got.bytes).digest('hex') : undefined,
          };
          if (!got || fields.messaging_product !== 'whatsapp' || !fields.type) {
            send(400, errorBody(400, 'cloud', 'file, type and messaging_product=whatsapp are required', TITLES[400]!));
          } else {
            const { id } = await this.addMedia({ bytes: got.bytes, mimeType: fields.type, fileName: got.fileName });
            send(200, { id });
          }
          resolve();
        })();
      });
      parser.on('error', fail);
      req.pipe(parser);
    });
  }

  private async handleControl(method: string, path: string, body: unknown, send: (status: number, json: unknown) => void): Promise<void> {
    const input = (body ?? {}) as Record<string, unknown>;
    if (method === 'POST' && path === '/__sim/next') {
      this.queueResponse(input as TScriptedResponse);
      return send(200, { ok: true, queued: this.queue.length });
    }
    if (method === 'POST' && path === '/__sim/inbound') {
      if (input.kind !== undefined && input.kind !== 'text') {
        const parsed = ZInboundKind.safeParse(input);
        if (!parsed.success)
          return send(400, { ok: false, error: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') });
        try {
          return send(200, await this.sendInboundKind(parsed.data));
        } catch (error) {
          return send(400, { ok: false, error: (error as Error).message });
        }
      }
      if (typeof input.from !== 'string' || typeof input.body !== 'string')
        return send(400, { ok: false, error: 'from and body are required' });
      return send(200, await this.sendInbound(input.from, input.body, typeof input.name === 'string' ? input.name : undefined));
    }
    if (method === 'POST' && path === '/__sim/media') {
      const parsed = z
        .object({
          bytesBase64: z.string().optional(),
          size: ZSimMediaSize,
          mimeType: z.string().min(1),
          fileName: z.string().optional(),
          sha256: z
            .string()
            .refine((v) => readSha256(v) !== null)
            .optional(),
        })
        .safeParse(input);
      if (!parsed.success) return send(400, { ok: false, error: 'mimeType and bytesBase64 or size are required' });
      return send(
        200,
        await this.addMedia({
          ...parsed.data,
          bytes: parsed.data.bytesBase64 !== undefined ? Buffer.from(parsed.data.bytesBase64, 'base64') : undefined,
        }),
      );
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
