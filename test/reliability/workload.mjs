// The crash loop's client (a child process, forked with IPC): a seeded mix of sync and async, sandbox and live
// checks sent with Idempotency-Keys, reporting to the parent every response it received (an acknowledged op).
// A request cut by a crash is retried with the same key once the parent announces the restarted service.

/** mulberry32: a small seeded PRNG, so a failing run can be replayed from its printed seed. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Sandbox fixtures (resources/sandbox/fixtures.json); the live stand-in answers the same way.
const NG_OK = { country: 'NG', accountNumber: '0123456789', bankCode: '058' };
const NG_NOT_FOUND = { country: 'NG', accountNumber: '0000000000', bankCode: '058' };
const NG_INCONCLUSIVE = { country: 'NG', accountNumber: '0999999995', bankCode: '058' };
const NG_ERROR = { country: 'NG', accountNumber: '0999999992', bankCode: '058' };

const MIX = [
  { env: 'sandbox', body: NG_OK, weight: 2 },
  { env: 'sandbox', body: NG_NOT_FOUND, weight: 1 },
  { env: 'sandbox', body: { ...NG_OK, mode: 'async' }, weight: 2 },
  { env: 'live', body: NG_OK, weight: 3 },
  { env: 'live', body: NG_INCONCLUSIVE, weight: 1 },
  { env: 'live', body: NG_ERROR, weight: 1 },
  { env: 'live', body: { ...NG_OK, mode: 'async' }, weight: 2 },
  { env: 'live', body: { ...NG_INCONCLUSIVE, mode: 'async' }, weight: 1 },
  { replay: true, weight: 2 },
];
const TOTAL = MIX.reduce((s, m) => s + m.weight, 0);

let cfg = null;
let base = null;
let gen = 0;
let stopping = false;
let opSeq = 0;
const waiters = [];
const workers = [];
const acked = [];
const stats = { sent: 0, acked: 0, cut: 0, replays: 0 };

function send(msg) {
  process.send?.(msg);
}

function nextGen(after) {
  if (gen > after || stopping) return Promise.resolve();
  return new Promise((r) => waiters.push(r));
}

function pick(r) {
  let x = r() * TOTAL;
  for (const m of MIX) {
    x -= m.weight;
    if (x < 0) return m;
  }
  return MIX[0];
}

async function post(op) {
  const res = await fetch(`${base}/api/v1/verify/account`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': op.env === 'live' ? cfg.liveKey : cfg.sandboxKey, 'idempotency-key': op.idem },
    body: JSON.stringify(op.body),
  });
  const text = await res.text();
  return { status: res.status, text, replayed: res.headers.get('idempotent-replayed') === 'true' };
}

/** Sends one op until a response arrives (a cut connection waits for the next service generation). */
async function run(op) {
  for (;;) {
    if (stopping && base === null) return;
    const myGen = gen;
    try {
      stats.sent += 1;
      return await post(op);
    } catch {
      stats.cut += 1;
      await nextGen(myGen);
      if (stopping && gen === myGen) return;
    }
  }
}

async function worker(w) {
  const r = rng(cfg.seed * 31 + w);
  while (!stopping) {
    if (base === null) await nextGen(gen);
    if (stopping) break;
    const m = pick(r);
    if (m.replay) {
      const prev = acked.length > 0 ? acked[Math.floor(r() * acked.length)] : null;
      if (!prev) continue;
      const res = await run(prev);
      if (!res) break;
      stats.replays += 1;
      send({ type: 'replay', idem: prev.idem, env: prev.env, status: res.status, text: res.text, replayed: res.replayed, same: res.text === prev.text && res.status === prev.status });
      continue;
    }
    opSeq += 1;
    const op = { idem: `crash-${cfg.seed}-${w}-${opSeq}`, env: m.env, body: m.body };
    const res = await run(op);
    if (!res) break;
    stats.acked += 1;
    const done = { ...op, status: res.status, text: res.text, replayed: res.replayed };
    if (res.status === 200 || res.status === 202) acked.push(done);
    send({ type: 'ack', op: done });
  }
}

process.on('message', (msg) => {
  if (msg.type === 'start') {
    cfg = msg;
    for (let w = 0; w < (cfg.concurrency ?? 4); w++) workers.push(worker(w));
  } else if (msg.type === 'url') {
    base = msg.url;
    gen = msg.gen;
    for (const r of waiters.splice(0)) r();
  } else if (msg.type === 'flush') {
    // IPC is ordered: when the parent gets this, it has every ack sent before it.
    send({ type: 'flushed', n: msg.n });
  } else if (msg.type === 'stop') {
    stopping = true;
    for (const r of waiters.splice(0)) r();
    // Requests in flight finish first (the service is up), so every response is reported before 'stopped'.
    void Promise.all(workers).then(() => {
      send({ type: 'stopped', stats });
      process.disconnect?.();
    });
  }
});
