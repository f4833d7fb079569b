import type http from 'node:http';
import { checkFirmNumbers } from './firm-numbers';
import { closeHttpServer, startHttpServer } from './http-server';
import { pressButton, sendInbound, sendInboundKind, type TInboundKindInput } from './inbound-messages';
import { addMedia, readMediaBytes, type TAddedMedia, type TAddMediaInput } from './media-files';
import {
  ageMessage,
  configureSim,
  createSimState,
  markInbound,
  type TRecordedRequest,
  type TScriptedResponse,
  type TSimMessage,
  type TSimSettings,
  type TSimState,
  type TSimulatorOptions,
} from './sim-state';
import { postReceipt, type TReceiptError, type TWebhookAnswer } from './webhook-delivery';
import { cancelRetries, settleRetries } from './webhook-retries';

// A local stand-in for the messaging provider, over real HTTP, for development, e2e tests and
// benchmarks. It checks PROVIDER-API-KEY, validates the send body, answers like the cloud API,
// serves the business profile, and posts signed receipts (and inbound texts) to the app's webhook,
// like the real provider: a little later, and sometimes out of order. It serves one or several of the
// firm's business numbers, one API key each (firm-numbers.ts).
//
// This file is the simulator's one entry point (tests and cli.ts import from it); each job lives in
// its own file beside it: http-server (routing), send-rules (POST /messages), webhook-delivery,
// inbound-messages, media-files and media-endpoints, templates, firm-numbers, control-api (/__sim/),
// sim-state.

export type { TInboundKindInput } from './inbound-messages';
export type { TRecordedRequest, TScriptedResponse, TSimMessage, TSimNumber, TSimTemplate, TSimulatorOptions } from './sim-state';
export { FIRM_DIGITS } from './sim-state';

export class ProviderSimulator {
  private readonly state: TSimState;
  readonly requests: TRecordedRequest[];
  /** Every message the simulator accepted (whether or not its answer reached the app), and the firm's number it went from. */
  readonly accepted: { id: string; to: string; firm: string }[];
  private server: http.Server | undefined;
  url = '';

  constructor(readonly options: TSimulatorOptions) {
    checkFirmNumbers(options);
    this.state = createSimState(options);
    this.requests = this.state.requests;
    this.accepted = this.state.accepted;
  }

  async start(): Promise<this> {
    const { server, url } = await startHttpServer(this.state);
    this.server = server;
    this.url = url;
    return this;
  }

  /** Stops: waiting webhook retries are dropped, held requests and connections ended. */
  close(): Promise<void> {
    cancelRetries(this.state);
    return closeHttpServer(this.state, this.server);
  }

  /** The next provider call (send or profile) answers this instead. */
  queueResponse(response: TScriptedResponse): void {
    this.state.queue.push(response);
  }

  /** Resolves with the first recorded request (one already made, or the next) that `test` accepts. */
  waitForRequest(test: (request: TRecordedRequest) => boolean): Promise<TRecordedRequest> {
    const made = this.state.requests.find(test);
    if (made) return Promise.resolve(made);
    return new Promise((resolve) => this.state.requestWaiters.add({ test, resolve }));
  }

  /** Holds the answers to media uploads until the returned function is called. */
  holdUploads(): () => void {
    let release!: () => void;
    this.state.uploadGate = new Promise<void>((resolve) => (release = resolve));
    return () => {
      this.state.uploadGate = null;
      release();
    };
  }

  configure(patch: TSimSettings): void {
    configureSim(this.state, patch);
  }

  /**
   * Resolves when every receipt or inbound post started so far has had its first answer (a post the
   * app refused or never answered may still be retried: `settleRetries`).
   */
  async settle(): Promise<void> {
    while (this.state.pending.size) await Promise.allSettled([...this.state.pending]);
  }

  /**
   * Resolves when no webhook post is waiting to be tried again: each was taken (2xx), given up,
   * or stopped (retries turned off, the simulator closed). With the default backoff that can take
   * days: for tests that set short `webhookRetryBaseMs`/`webhookRetryCapMs`.
   */
  async settleRetries(): Promise<void> {
    await this.settle();
    await settleRetries(this.state);
  }

  /** How many webhook posts are waiting to be tried again. */
  retriesWaiting(): number {
    return this.state.retries.size;
  }

  /**
   * Records that a client wrote just now to the firm's number `firm` (digits; default number 1),
   * opening that 24-hour window only, without posting anything.
   */
  markInbound(from: string, at = Date.now(), firm?: string): void {
    markInbound(this.state, from, at, firm);
  }

  /**
   * Posts a signed inbound text "from" a number to the app's webhook, written to the firm's number
   * `toNumber` (digits; default number 1); returns the webhook's answer.
   */
  sendInbound(from: string, body: string, name?: string, toNumber?: string): Promise<TWebhookAnswer & { id: string }> {
    return sendInbound(this.state, from, body, name, toNumber);
  }

  /**
   * Posts a signed inbound message of any kind (or an echo from the firm's phone) to the app's
   * webhook, shaped as the real provider shapes it; media is registered first and announced by id.
   */
  sendInboundKind(input: TInboundKindInput): Promise<TWebhookAnswer & { id: string; mediaId?: string }> {
    return sendInboundKind(this.state, input);
  }

  /** Posts one status receipt for a message id (a `failed` one with the given error), dated `at` (epoch ms; default now). */
  postReceipt(id: string, status: string, to?: string, error?: TReceiptError, at?: number): Promise<TWebhookAnswer> {
    return postReceipt(this.state, id, status, to, error, at);
  }

  /** Registers a file the provider holds (what a client sent, or a test's fixture). */
  addMedia(input: TAddMediaInput): Promise<TAddedMedia> {
    return addMedia(this.state, input);
  }

  /**
   * The client presses button `buttonId` of the question `messageId` the app sent: a signed button
   * reply naming the question (`context.id`) is posted to the app's webhook.
   */
  pressButton(messageId: string, buttonId: string): Promise<TWebhookAnswer & { id: string }> {
    return pressButton(this.state, messageId, buttonId);
  }

  /** A message delivered or received, with the firm's reaction and read (undefined: never seen). */
  message(id: string): TSimMessage | undefined {
    return this.state.messages.get(id);
  }

  /** Moves a message's time `days` back (reactions are taken for 30 days only); false for an unknown id. */
  ageMessage(id: string, days: number): boolean {
    return ageMessage(this.state, id, days) !== null;
  }

  /** The bytes the simulator holds for a media id (uploads included), read whole: for tests of small files. */
  mediaBytes(id: string): Buffer | null {
    return readMediaBytes(this.state, id);
  }
}

export function startProviderSimulator(options: TSimulatorOptions): Promise<ProviderSimulator> {
  return new ProviderSimulator(options).start();
}
