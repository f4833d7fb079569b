import type { ServerResponse } from 'node:http';

// What one simulator holds between requests, and the shapes of it its parts share: every part
// (routing, send rules, webhook delivery, media, control API) reads and writes this one object.

/** `headers`: e.g. a `location` for a redirect the app must not follow. */
// `onlySends`: answers the next message send (a body with a recipient), and lets other calls (a read
// mark, the profile, media) pass by: an app's background call made meanwhile cannot take it.
export type TScriptedResponse = (
  | { status: number; shape?: 'cloud' | 'onprem'; details?: string; title?: string; body?: unknown; headers?: Record<string, string> }
  | { hang: true }
) & { onlySends?: boolean };

export type TRecordedRequest = {
  method: string;
  path: string;
  query: string;
  apiKey: string | undefined;
  /** The digits of the firm's number the key belongs to (none: an unknown key). */
  firm?: string;
  contentType: string | undefined;
  body: unknown;
};

/** `headerFormat`: a header holding a file (sent with the template by media id) or text. */
export type TSimTemplate = {
  name: string;
  language: string;
  status: string;
  category: string;
  body: string;
  headerFormat?: 'DOCUMENT' | 'IMAGE' | 'VIDEO' | 'TEXT';
};

/**
 * A message the simulator delivered (`outbound`: the app sent it, or the firm's phone: an echo) or
 * received from a client (`inbound`), with what happened to it since: the firm's reaction, when the
 * firm marked it read, the buttons a question was sent with and which one the client pressed.
 */
export type TSimMessage = {
  id: string;
  direction: 'outbound' | 'inbound';
  /** The client's number. */
  peer: string;
  /** The firm's number (digits) it went from or came to. */
  firm: string;
  /** The provider's type: text, template, interactive, image, reaction, … */
  type: string;
  /** When it was sent (epoch ms): reactions are taken for 30 days. */
  at: number;
  buttons?: { id: string; title: string }[];
  /** The client's choice of a button (the reply's id), when pressed. */
  pressed?: { buttonId: string; replyId: string };
  /** The firm's reaction to this client message (null once taken away). */
  reaction?: { emoji: string; at: number; id: string } | null;
  /** When the firm marked it read (it, or a later message from the same number). */
  readAt?: number;
  /** Deleted by its sender. */
  revoked?: boolean;
  /** A template's media header: the uploaded file's id. */
  headerMediaId?: string;
};

/**
 * Another of the firm's business numbers, as a BSP serves it: its own API key (the key a send
 * carries says which number it goes from), its own webhook secret and template catalogue if given.
 */
export type TSimNumber = {
  apiKey: string;
  digits: string;
  phoneNumberId: string;
  /** Signs what concerns this number (none: the top-level webhookSecret). */
  webhookSecret?: string;
  /** Its catalogue (none: the shared one). */
  templates?: TSimTemplate[];
};

export type TSimulatorOptions = {
  port?: number;
  host?: string;
  /** Number 1's key (number 1: FIRM_DIGITS, phone_number_id 'SIM', signed with webhookSecret). */
  apiKey: string;
  /** The firm's other numbers, beside number 1. */
  numbers?: TSimNumber[];
  profilePath?: string;
  /** Where receipts and inbound texts are posted; none: receipts are not sent. */
  webhookUrl?: string;
  webhookSecret?: string;
  /** Delays after the send answer for sent, delivered, read. */
  receiptDelaysMs?: [number, number, number];
  /** Chance that a message's receipts are posted in a shuffled order. */
  outOfOrderRate?: number;
  autoReceipts?: boolean;
  /**
   * Post the given receipts and wait for the webhook's answer before answering the send (the race
   * of server/messaging/README.md "Sending messages": early receipts).
   */
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
  /**
   * Try a webhook post the app did not take (no answer, or not 2xx) again, as the provider does
   * (default true); false: one try each, and waiting retries stop.
   */
  webhookRetries?: boolean;
  /** The first retry's wait (default 1 s); each next one about doubles (webhook-retries.ts). */
  webhookRetryBaseMs?: number;
  /** The longest wait between two tries (default 15 min). */
  webhookRetryCapMs?: number;
  /** No retry starts later than this after the first try (default 7 days, as the provider). */
  webhookRetryForMs?: number;
};

/** The options a running simulator can change (`configure`, `POST /__sim/config`). */
export type TSimSettings = Partial<
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
    | 'webhookRetries'
    | 'webhookRetryBaseMs'
    | 'webhookRetryCapMs'
    | 'webhookRetryForMs'
  >
>;

/** A file the simulator holds: given bytes, or generated ones (never held whole) of a given size. */
export type TSimMedia = {
  id: string;
  mimeType: string;
  fileName: string | null;
  size: number;
  sha256Hex: string;
  advertisedSha256Hex: string;
  bytes: Buffer | null;
};

/** A webhook post waiting for its next try, or trying (webhook-retries.ts). */
export type TWebhookRetry = { cancel: () => void; done: Promise<void> };

/** Answers a request with JSON (once; nothing if the app already hung up). */
export type TSendJson = (status: number, json: unknown, headers?: Record<string, string>) => void;

export type TSimState = {
  readonly options: TSimulatorOptions;
  readonly requests: TRecordedRequest[];
  /** Every message the simulator accepted (whether or not its answer reached the app), and the firm's number it went from. */
  readonly accepted: { id: string; to: string; firm: string }[];
  readonly requestWaiters: Set<{ test: (r: TRecordedRequest) => boolean; resolve: (r: TRecordedRequest) => void }>;
  /** While set, `POST /media` answers only when it resolves (an upload the app is still waiting on). */
  uploadGate: Promise<void> | null;
  /** Scripted answers, taken one per provider call. */
  readonly queue: TScriptedResponse[];
  /** Receipt and inbound posts still under way, to their first answer (what `settle` waits for). */
  readonly pending: Set<Promise<unknown>>;
  /** Posts the app did not take, waiting for their next try (what `settleRetries` waits for). */
  readonly retries: Set<TWebhookRetry>;
  /** Requests answered with `{hang: true}`: held open until the simulator closes. */
  readonly hanging: Set<ServerResponse>;
  /** One counter for every id the simulator makes (messages, inbound messages, media). */
  sequence: number;
  /** When each client last wrote to each of the firm's numbers (the 24-hour rule), by `windowKey`. */
  readonly lastInbound: Map<string, number>;
  readonly media: Map<string, TSimMedia>;
  /** Every message delivered or received, by id (what a reaction or a read refers to). */
  readonly messages: Map<string, TSimMessage>;
};

/** The firm's number as the simulator announces it in what it posts. */
export const FIRM_DIGITS = '442079460000';

export function createSimState(options: TSimulatorOptions): TSimState {
  return {
    options,
    requests: [],
    accepted: [],
    requestWaiters: new Set(),
    uploadGate: null,
    queue: [],
    pending: new Set(),
    retries: new Set(),
    hanging: new Set(),
    sequence: 0,
    lastInbound: new Map(),
    media: new Map(),
    messages: new Map(),
  };
}

/** Adds the next number to the one id counter and returns it. */
export function nextSequence(state: TSimState): number {
  return ++state.sequence;
}

/** Keeps `work` in the set `settle` waits on until it has finished. */
export function trackPending<T>(state: TSimState, work: Promise<T>): Promise<T> {
  state.pending.add(work);
  void work.finally(() => state.pending.delete(work));
  return work;
}

/** Records a provider call and wakes whoever waits for one like it. */
export function recordRequest(state: TSimState, request: TRecordedRequest): void {
  state.requests.push(request);
  for (const waiter of [...state.requestWaiters]) {
    if (!waiter.test(request)) continue;
    state.requestWaiters.delete(waiter);
    waiter.resolve(request);
  }
}

/** The key of one 24-hour window: a window is between one client and one of the firm's numbers. */
export function windowKey(client: string, firm: string): string {
  return `${client}>${firm}`;
}

/** Records that a client wrote to one of the firm's numbers (number 1 unless given): opens that window only. */
export function markInbound(state: TSimState, from: string, at = Date.now(), firm = FIRM_DIGITS): void {
  state.lastInbound.set(windowKey(from, firm), at);
}

/** Changes the options a running simulator may change. */
export function configureSim(state: TSimState, patch: TSimSettings): void {
  Object.assign(state.options, patch);
}

/** Remembers a message delivered or received (what later reactions, reads and button presses refer to). */
export function rememberMessage(state: TSimState, message: TSimMessage): void {
  state.messages.set(message.id, message);
}

/** Moves a message's time back by `days` (reactions are taken for 30 days only); null for an id not known here. */
export function ageMessage(state: TSimState, messageId: string, days: number): TSimMessage | null {
  const message = state.messages.get(messageId);
  if (!message) return null;
  message.at -= days * 24 * 60 * 60 * 1000;
  return message;
}
