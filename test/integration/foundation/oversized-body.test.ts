// A request that is too large gets its 413 (issue 16, item 5), over a real socket: the client writes its whole
// oversized body, as an upload does, and must read the §7.1 answer with no EPIPE or reset on the way. Before the
// fix every such send of 20 MB ended in EPIPE: Node closed the socket with the unread body in its buffer (RST).
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newKey, startTestService, type TestService } from '../../helpers/harness';

let ts: TestService;
beforeAll(async () => {
  ts = await startTestService();
});
afterAll(async () => {
  await ts.stop();
});

interface Outcome {
  response: string;
  socketError: string | null;
}

/** Sends headers and then `size` bytes of body as fast as the socket takes them; resolves when the socket closes. */
function send(path: string, size: number, chunked: boolean): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket = connect(ts.port, '127.0.0.1');
    let response = '';
    let socketError: string | null = null;
    socket.on('data', (d: Buffer) => (response += d.toString('latin1')));
    socket.on('error', (e: NodeJS.ErrnoException) => (socketError = e.code ?? e.message));
    socket.on('close', () => resolve({ response, socketError }));
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${ts.port}\r\nContent-Type: application/json\r\nX-API-Key: ${ts.sandboxKey}\r\n` +
        `Idempotency-Key: ${newKey()}\r\n${chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${size}`}\r\n\r\n`,
    );
    const piece = Buffer.alloc(64 * 1024, 0x20);
    let sent = 0;
    const pump = () => {
      while (sent < size) {
        const n = Math.min(piece.length, size - sent);
        sent += n;
        const data = chunked ? Buffer.concat([Buffer.from(`${n.toString(16)}\r\n`), piece.subarray(0, n), Buffer.from('\r\n')]) : piece.subarray(0, n);
        if (!socket.write(data)) {
          socket.once('drain', pump);
          return;
        }
      }
      if (chunked) socket.write('0\r\n\r\n');
    };
    pump();
  });
}

function expect413(o: Outcome): void {
  expect(o.socketError).toBeNull();
  expect(o.response.startsWith('HTTP/1.1 413')).toBe(true);
  const body = JSON.parse(o.response.slice(o.response.indexOf('\r\n\r\n') + 4)) as { code: string; statusCode: number };
  expect(body).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', statusCode: 413 });
}

describe('an oversized body', () => {
  it('declared with Content-Length: the client sends it all and reads the 413, every time', async () => {
    for (let i = 0; i < 5; i++) expect413(await send('/api/v1/verify/account', 20 * 1024 * 1024, false));
  });

  it('sent chunked (no length up front): refused once past the limit, the rest read and discarded', async () => {
    for (let i = 0; i < 3; i++) expect413(await send('/api/v1/verify/account', 8 * 1024 * 1024, true));
  });

  it('a selfie over the face route limit gets the 413 too', async () => {
    expect413(await send('/api/v1/verify/face', 24 * 1024 * 1024, false));
  });
});
