import net from 'node:net';

export type TRawAnswer = {
  /** The answer's status, or null when none arrived whole. */
  status: number | null;
  headers: Record<string, string>;
  body: string;
  /** How the connection failed while the client was sending or reading (ECONNRESET, EPIPE …), if it did. */
  error: string | null;
  /** Every byte of the body was handed to the socket. */
  sentWhole: boolean;
  /** The server ended the connection before the client was done with it. */
  closedByServer: boolean;
};

export type TRawUpload = {
  url: string;
  method?: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
  /** Send the body chunked, with no Content-Length. */
  chunked?: boolean;
  /** Bytes per write (a browser writes in pieces; the socket may answer between them). */
  pieceBytes?: number;
  /** A pause after each piece: a link slower than loopback, still sending when the answer comes. */
  pieceDelayMs?: number;
  /** Stop sending after this many body bytes, the connection left open: done when the answer is whole. */
  stopAfterBytes?: number;
  /** Done only when the server ends the connection (to see that it does). */
  untilClosed?: boolean;
};

/**
 * A client as plain as a socket: it writes the whole request, reading whatever comes back as it
 * goes, and reports whether the connection was reset under it. fetch hides a reset that follows an
 * answer it already read; this one sees it, and a reset is what a slower or remote client (or a
 * proxy in between) loses the answer to.
 */
export function rawUpload(input: TRawUpload): Promise<TRawAnswer> {
  const { hostname, port } = new URL(input.url);
  const piece = input.pieceBytes ?? 64 * 1024;
  const head =
    `${input.method ?? 'POST'} ${input.path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n` +
    Object.entries(input.headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('') +
    (input.chunked ? 'Transfer-Encoding: chunked\r\n' : `Content-Length: ${input.body.length}\r\n`) +
    '\r\n';
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    const received: Buffer[] = [];
    let error: string | null = null;
    let sentWhole = false;
    let stalled = false;
    let closedByServer = false;
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve({ ...parseAnswer(Buffer.concat(received)), error, sentWhole, closedByServer });
    };
    // Done when the answer is whole and the body sent (or stopped), or when the connection is gone.
    const maybeDone = () => {
      if (input.untilClosed || !(sentWhole || stalled)) return;
      if (parseAnswer(Buffer.concat(received)).status !== null) finish();
    };
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk);
      maybeDone();
    });
    socket.on('end', () => (closedByServer = true));
    socket.on('error', (e: NodeJS.ErrnoException) => {
      closedByServer = true;
      error ??= e.code ?? e.message;
    });
    socket.on('close', finish);
    socket.on('connect', () => {
      void (async () => {
        const write = (bytes: Buffer | string) =>
          new Promise<boolean>((done) => {
            if (socket.destroyed) return done(false);
            socket.write(bytes, (e) => done(!e));
          });
        if (!(await write(head))) return;
        const upTo = Math.min(input.body.length, input.stopAfterBytes ?? Infinity);
        for (let at = 0; at < upTo; at += piece) {
          if (at > 0 && input.pieceDelayMs) await new Promise((resolve) => setTimeout(resolve, input.pieceDelayMs));
          const slice = input.body.subarray(at, Math.min(at + piece, upTo));
          const framed = input.chunked
            ? Buffer.concat([Buffer.from(`${slice.length.toString(16)}\r\n`), slice, Buffer.from('\r\n')])
            : slice;
          if (!(await write(framed))) return;
        }
        if (upTo < input.body.length) {
          stalled = true;
          return maybeDone();
        }
        if (input.chunked && !(await write('0\r\n\r\n'))) return;
        sentWhole = true;
        maybeDone();
      })();
    });
  });
}

/** The status, headers and Content-Length body of one HTTP/1.1 answer; status null until it is whole. */
function parseAnswer(bytes: Buffer): Pick<TRawAnswer, 'status' | 'headers' | 'body'> {
  const empty = { status: null, headers: {}, body: '' };
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return empty;
  const [statusLine, ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  const body = bytes.subarray(end + 4);
  if (body.length < length) return empty;
  return { status: Number(statusLine!.split(' ')[1]), headers, body: body.subarray(0, length).toString('utf8') };
}
