// The audit export as a file download, for each door that serves it as one: the web console's
// GET /console/audit/export and the desktop app's app://console/audit/export (electron/app-downloads.ts). Both answer
// through the `audit:export` channel's dispatch (its role, input and errors) and send the file's text a slice at a
// time, never as one string: not in the bridge's JSON, not in one IPC message.
import { Readable } from 'node:stream';
import type { BridgeError } from '../../src-shared/channels';
import { downloadPrefix } from '../../src-shared/download-prefix';
import { HTTP_ERRORS } from '../../src-shared/errors';
import { dispatch, type ConsoleCaller, type Handlers } from './handlers';
import { attachmentDisposition } from './content-disposition';

/** The audit export is written out in slices of this many characters (docs/performance.md). */
const DOWNLOAD_SLICE_CHARS = 1 << 20;

/**
 * A text in parts as a stream of slices, each turned into bytes only when the reader has taken the one before: one
 * 46 MB string written at once (and, before, wrapped in the bridge's JSON) held the event loop for hundreds of ms.
 */
export function textSlices(prefix: string, parts: readonly string[], slice = DOWNLOAD_SLICE_CHARS): Readable {
  return Readable.from(
    (function* () {
      if (prefix) yield prefix;
      for (const text of parts) for (let i = 0; i < text.length; ) {
        let end = Math.min(i + slice, text.length);
        // Never between the two halves of a surrogate pair: each half alone would be written as U+FFFD.
        const last = text.charCodeAt(end - 1);
        if (end < text.length && last >= 0xd800 && last <= 0xdbff) end++;
        yield text.slice(i, end);
        i = end;
      }
    })(),
    { objectMode: false },
  );
}

/** The audit export as a file in parts (feature-audit.ts), run inside `consoleCall` by the composition root. */
export type AuditExportFile = (format: 'json' | 'csv') => Promise<{ filename: string; mediaType: string; parts: string[] }>;

/** A download's answer: the file's headers and its bytes as a stream, or the channel's error with its HTTP status. */
export type FileDownload = { ok: true; headers: Record<string, string>; body: Readable } | { ok: false; status: number; error: BridgeError };

/**
 * The audit export for a door's download: the channel's checks (role, input, errors) through `dispatch`, then the
 * file's parts as a stream. `format` is the raw query value, validated as the channel's input.
 */
export async function auditExportDownload(
  handlers: Handlers,
  exportFile: AuditExportFile,
  format: unknown,
  log?: { error(o: object, m: string): void },
  caller?: ConsoleCaller,
): Promise<FileDownload> {
  const answer = await dispatch(handlers, 'audit:export', { format }, log, caller, (i: { format: 'json' | 'csv' }) => exportFile(i.format));
  if (!answer.ok) {
    const status = (HTTP_ERRORS as Record<string, { status: number } | undefined>)[answer.error.code]?.status ?? 500;
    return { ok: false, status, error: answer.error };
  }
  const x = answer.value as Awaited<ReturnType<AuditExportFile>>;
  const type = `${x.mediaType}; charset=utf-8`;
  return {
    ok: true,
    // No Content-Length: counting the UTF-8 bytes of 46 MB of text alone held the loop 30 ms. Sent chunked.
    headers: {
      'content-type': type,
      'content-disposition': attachmentDisposition(x.filename),
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    },
    body: textSlices(downloadPrefix(type), x.parts),
  };
}
