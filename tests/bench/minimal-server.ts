import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import pg from 'pg';
import type { TBenchDelivery } from './bench-support';

// The benchmark's "minimal server" reference: check the HMAC, one INSERT per delivery, answer.
// No validation, no client matching, no notification: the floor a real ingest has to beat.
const { DATABASE_URL, PORT, SECRET, POOL } = process.env;
const pool = new pg.Pool({ connectionString: DATABASE_URL, max: Number(POOL ?? 10) });
const INSERT = `INSERT INTO communications (type, direction, body, peer_phone, metadata)
  VALUES ('chat', 'inbound', $1, $2, jsonb_build_object('chat_msg_id', $3::text))
  ON CONFLICT ((metadata->>'chat_msg_id')) DO NOTHING`;

http
  .createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const given = Buffer.from(String(req.headers['x-service-signature'] ?? '').replace(/^sha256=/, ''), 'hex');
      const expected = createHmac('sha256', SECRET!).update(raw).digest();
      if (given.length !== 32 || !timingSafeEqual(given, expected)) return void res.writeHead(401).end();
      const message = (JSON.parse(raw.toString()) as TBenchDelivery).entry[0].changes[0].value.messages[0];
      // A photo is stored as its caption: the floor does not record files (the app does, and queues them).
      pool.query(INSERT, [message.text?.body ?? message.image?.caption ?? '', message.from, message.id]).then(
        (r) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, stored: r.rowCount })),
        () => res.writeHead(503).end(),
      );
    });
  })
  .listen(Number(PORT), '127.0.0.1', () => console.log('ready'));
