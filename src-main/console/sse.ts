// Server-Sent Events framing (HTML Living Standard, "server-sent events"): kept minimal and tested rather than a
// plugin — @fastify/sse is 0.x and declares Node ≥20.20.2, narrower than this project's engines (docs/console-live.md).
import type { ServerResponse } from 'node:http';

export interface SseMessage {
  id?: string;
  event?: string;
  /** Sent as one `data:` line per line of text. */
  data: string;
}

/** One message as its wire text: field lines, then a blank line. Ids and event names never contain line breaks. */
export function sseFrame(m: SseMessage): string {
  let out = '';
  if (m.event !== undefined) out += `event: ${oneLine(m.event)}\n`;
  if (m.id !== undefined) out += `id: ${oneLine(m.id)}\n`;
  for (const line of m.data.split(/\r\n|\r|\n/)) out += `data: ${line}\n`;
  return out + '\n';
}

/** A comment line: ignored by the browser, it keeps proxies and idle timers from closing a quiet stream. */
export function sseComment(text: string): string {
  return `: ${oneLine(text)}\n\n`;
}

/** How long the browser waits before it reconnects after a dropped stream. */
export function sseRetry(ms: number): string {
  return `retry: ${Math.max(0, Math.floor(ms))}\n\n`;
}

function oneLine(s: string): string {
  // A NUL in an id makes the browser ignore the field, and a line break would end it: neither can come through.
  return s.replace(/[\r\n\0]/g, '');
}

/** Starts an event stream on a raw response: no caching, no buffering by proxies, no sniffing. */
export function startSseResponse(res: ServerResponse): void {
  res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    'X-Accel-Buffering': 'no',
    'X-Content-Type-Options': 'nosniff',
    Connection: 'keep-alive',
  });
  res.flushHeaders();
}
