// The Electron door's log: one pino logger, shared by the core and Fastify, writing to a size-rotated file in the
// data folder (`<data folder>/logs/desktop.log`, 5 MB × 5 kept). A Windows GUI process has no stdout: pino's and
// Fastify's default destination (fd 1) fails there with EBADF on the first line (pinojs/pino#1868). No electron import.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { createStream } from 'rotating-file-stream';
import { LOG_REDACT_PATHS } from '../service';

export const LOG_FILE = 'desktop.log';
export const LOG_MAX_SIZE = '5M';
export const LOG_KEEP = 5;

export interface DesktopLogger {
  logger: pino.Logger;
  /** The file being written. */
  file: string;
  /** Flushes and closes the file (at quit). Never rejects. */
  close(): Promise<void>;
}

export function logsDir(dataDir: string): string {
  return join(dataDir, 'logs');
}

export function createDesktopLogger(dataDir: string, level = 'warn', size: string = LOG_MAX_SIZE): DesktopLogger {
  const dir = logsDir(dataDir);
  mkdirSync(dir, { recursive: true });
  // Classical rotation: desktop.log → desktop.log.1 … desktop.log.5 once it reaches the size.
  const stream = createStream(LOG_FILE, { path: dir, size, rotate: LOG_KEEP });
  // A log that cannot be written (full disk) must never take the app down.
  stream.on('error', () => {});
  const logger = pino({ level, redact: { paths: LOG_REDACT_PATHS, censor: '[redacted]' } }, stream);
  let closed: Promise<void> | null = null;
  return {
    logger,
    file: join(dir, LOG_FILE),
    close: () =>
      (closed ??= new Promise<void>((done) => {
        stream.once('finish', () => done());
        stream.once('error', () => done());
        stream.end();
      })),
  };
}
