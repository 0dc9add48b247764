// A raw HTTP/1.1 exchange over node:net, for requests that fetch and node:http refuse to send as written
// (two copies of a header, invalid UTF-8, a foreign Host, oversized request lines).
import { connect } from 'node:net';

export interface RawExchange {
  status: number;
  headers: Record<string, string>;
  text: string;
  body: any;
}

/** Sends `head` (request line and headers, without the blank line) and `body`, reads until the server closes. */
export function rawExchange(port: number, head: string, body: Buffer | string = ''): Promise<RawExchange> {
  const payload = Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  const lines = head.split('\r\n').filter((l) => l.length > 0);
  const framed = lines.some((l) => /^(content-length|transfer-encoding):/i.test(l));
  if (!framed && payload.length > 0) lines.push(`Content-Length: ${payload.length}`);
  lines.push('Connection: close');
  const request = Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), payload]);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    // Written without a half-close: Node's server drops a half-closed socket whose answer is still pending.
    const socket = connect({ host: '127.0.0.1', port }, () => socket.write(request));
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', (e: NodeJS.ErrnoException) => {
      // The server may close while we still write (a 431 or 413 answered early); what it sent still counts.
      if (chunks.length === 0) reject(e);
    });
    socket.on('close', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const split = raw.indexOf('\r\n\r\n');
      const headText = split >= 0 ? raw.slice(0, split) : raw;
      let text = split >= 0 ? raw.slice(split + 4) : '';
      const [statusLine, ...headerLines] = headText.split('\r\n');
      const headers: Record<string, string> = {};
      for (const l of headerLines) {
        const i = l.indexOf(':');
        if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
      }
      if (/chunked/i.test(headers['transfer-encoding'] ?? '')) text = dechunk(text);
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        /* not JSON */
      }
      resolve({ status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1] ?? 0), headers, text, body: parsed });
    });
  });
}

function dechunk(s: string): string {
  let out = '';
  let rest = s;
  for (;;) {
    const nl = rest.indexOf('\r\n');
    if (nl < 0) return out;
    const size = parseInt(rest.slice(0, nl), 16);
    if (!size) return out;
    out += rest.slice(nl + 2, nl + 2 + size);
    rest = rest.slice(nl + 2 + size + 2);
  }
}
