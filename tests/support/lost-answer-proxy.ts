import http from 'node:http';
import type { AddressInfo } from 'node:net';

// A proxy between the app and the provider simulator that passes every request on and can put an
// error of its own in place of the provider's answer to the next send — after the provider took
// it, as a failing gateway or a provider failing after it acted does.

export type TLostAnswerProxy = {
  url: string;
  /** Where requests go on to (the simulator's url); set once it is known. */
  target: string;
  /** The next `POST /messages` reaches the provider, and the app gets this status instead of its answer. */
  failNextSendAfterIt: (status: number) => void;
  /**
   * The next `POST /messages` reaches the provider, and its answer is held back from the app:
   * `reached` resolves once the provider has answered, `release` lets the answer go on.
   */
  holdNextSendAnswer: () => { reached: Promise<void>; release: () => void };
  close: () => Promise<void>;
};

type THold = { reached: () => void; released: Promise<void> };

export async function startLostAnswerProxy(): Promise<TLostAnswerProxy> {
  const swaps: number[] = [];
  const holds: THold[] = [];
  const proxy: TLostAnswerProxy = {
    url: '',
    target: '',
    failNextSendAfterIt: (status) => void swaps.push(status),
    holdNextSendAnswer: () => {
      let reached!: () => void;
      let release!: () => void;
      const reachedPromise = new Promise<void>((resolve) => (reached = resolve));
      holds.push({ reached, released: new Promise<void>((resolve) => (release = resolve)) });
      return { reached: reachedPromise, release };
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const headers: Record<string, string> = {};
      for (const name of ['provider-api-key', 'content-type', 'accept']) {
        const value = req.headers[name];
        if (typeof value === 'string') headers[name] = value;
      }
      const answer = await fetch(`${proxy.target}${req.url ?? '/'}`, {
        method: req.method,
        headers,
        body: chunks.length ? Buffer.concat(chunks) : undefined,
        redirect: 'manual',
      });
      const text = await answer.text();
      const isSend = req.method === 'POST' && req.url === '/messages';
      const hold = isSend ? holds.shift() : undefined;
      if (hold) {
        hold.reached();
        await hold.released;
      }
      const swapped = isSend ? swaps.shift() : undefined;
      if (swapped !== undefined) {
        res.writeHead(swapped, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'upstream failed', code: swapped } }));
        return;
      }
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
      res.end(text);
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}
