import net from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createSequelize } from '../../server/core/db/sequelize';
import { createLogger } from '../../server/core/logger';

// A PostgreSQL that accepts a connection and ends it in the same packet, as one does when it shuts
// down at that instant (Ctrl-C to the app's process group): the connect must fail, not end the process
// with an 'error' no one listened to. A real PostgreSQL cannot be made to do it on cue, so this server
// speaks just those three messages of the protocol.
function message(type: string, body: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeInt32BE(body.length + 4);
  return Buffer.concat([Buffer.from(type), length, body]);
}
const int32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};
const field = (code: string, value: string) => Buffer.from(`${code}${value}\0`);
const ACCEPT_THEN_END = Buffer.concat([
  message('R', int32(0)), // AuthenticationOk
  message('Z', Buffer.from('I')), // ReadyForQuery: connected
  message(
    'E',
    Buffer.concat([
      field('S', 'FATAL'),
      field('C', '57P01'),
      field('M', 'terminating connection due to administrator command'),
      Buffer.from('\0'),
    ]),
  ),
]);

let server: net.Server;
let port: number;
beforeAll(async () => {
  server = net.createServer((socket) => {
    socket.once('data', () => socket.end(ACCEPT_THEN_END)); // the startup message, then all at once
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as net.AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

it('a connection the database accepts and ends in one packet fails the connect and leaves the process running', async () => {
  const sequelize = createSequelize(`postgres://app:secret@127.0.0.1:${port}/firm`, createLogger('silent'));
  try {
    await expect(sequelize.authenticate()).rejects.toThrow(/not queryable|terminating connection|Connection/);
  } finally {
    await sequelize.close();
  }
});
