// A local webhook receiver for the benchmarks, in its own process: answers 200 at once, checks X-Signature
// (HMAC-SHA256 of the raw body) when it knows the secret, and records when each verification's event arrived.
// POST /_secret sets the secret; GET /_results returns { received, badSignature, receipts: { verificationId: ms } }.
// Prints "PORT n" on stdout.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

let secret = null;
let received = 0;
let badSignature = 0;
const receipts = new Map();
// Epoch milliseconds with sub-millisecond resolution, comparable with the bench process's clock.
const nowMs = () => performance.timeOrigin + performance.now();

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const at = nowMs();
    const body = Buffer.concat(chunks);
    if (req.url === '/_secret') {
      secret = body.toString('utf8');
      res.end('ok');
      return;
    }
    if (req.url === '/_results') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ received, badSignature, receipts: Object.fromEntries(receipts) }));
      receipts.clear();
      return;
    }
    if (req.url === '/_reset') {
      received = 0;
      badSignature = 0;
      receipts.clear();
      res.end('ok');
      return;
    }
    received++;
    if (secret !== null) {
      const want = Buffer.from(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
      const got = Buffer.from(String(req.headers['x-signature'] ?? ''));
      if (want.length !== got.length || !timingSafeEqual(want, got)) badSignature++;
    }
    try {
      const id = JSON.parse(body.toString('utf8')).verificationId;
      if (typeof id === 'string' && !receipts.has(id)) receipts.set(id, at);
    } catch {
      badSignature++;
    }
    res.end('ok');
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`PORT ${server.address().port}\n`));
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
