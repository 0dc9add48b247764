// Baseline for the HTTP benchmarks: a bare Fastify app with a JSON-schema POST and a GET, same process model
// as the service (one Node process). Prints its port on stdout.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
const body = {
  type: 'object',
  required: ['country', 'accountNumber'],
  properties: { country: { type: 'string' }, accountNumber: { type: 'string' }, bankCode: { type: 'string' } },
};
// The same shape and size as a stored sandbox account verification, so the GET routes serialise as much JSON.
const record = {
  id: 'ver_0123456789abcdef01234567',
  status: 'success',
  verified: true,
  verificationType: 'ACCOUNT_NUMBER',
  identifier: '0123456789',
  country: 'NG',
  bankCode: '058',
  environment: 'sandbox',
  mode: 'sync',
  createdAt: '2026-11-21T10:00:00.000Z',
  completedAt: '2026-11-21T10:00:00.000Z',
  source: 'live',
  charge: { amount: 0, currency: 'USD', status: 'not_charged' },
  accountName: 'ADAEZE OKAFOR',
  bankName: 'Guaranty Trust Bank',
};
app.post('/api/v1/verify/account', { schema: { body } }, async (req) => ({ ...record, identifier: req.body.accountNumber }));
app.get('/api/v1/verify/:id', async (req) => ({ ...record, id: req.params.id }));
app.get('/api/v1/verify', async () => ({ data: Array.from({ length: 100 }, () => record), pagination: { total: 1e6, limit: 100, offset: 0, hasMore: true } }));
await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`PORT ${app.server.address().port}\n`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
