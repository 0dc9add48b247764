// Checks that a listener address can be bound before it is saved, so a taken port is reported while the user is
// still looking at the form instead of at the next start.
import { createServer } from 'node:net';

export type PortCheck = { ok: true } | { ok: false; code: string; message: string };

export function listenErrorMessage(code: string | undefined, host: string, port: number): string | null {
  switch (code) {
    case 'EADDRINUSE':
      return `Port ${port} is already in use by another program.`;
    case 'EACCES':
      return `This program is not allowed to listen on port ${port}. Choose a port above 1024.`;
    case 'EADDRNOTAVAIL':
      return `${host} is not an address of this computer.`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `The host name ${host} could not be resolved.`;
    default:
      return null;
  }
}

/** Binds and releases host:port. Exclusive, so a port shared by a cluster of another program counts as taken. */
export function checkPortAvailable(host: string, port: number): Promise<PortCheck> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) => {
      const code = err.code ?? 'UNKNOWN';
      resolve({ ok: false, code, message: listenErrorMessage(code, host, port) ?? `Cannot listen on ${host}:${port} (${code}).` });
    });
    server.listen({ host, port, exclusive: true }, () => {
      server.close(() => resolve({ ok: true }));
    });
  });
}
