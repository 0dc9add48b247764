// Browser-side file download: a file the console built itself, or one its door served (the audit export).
import { downloadPrefix } from '../../../src-shared/download-prefix';

/** Saves text as a file through a temporary Blob URL (no server round trip, works in Electron and the browser). */
export function downloadText(fileName: string, text: string, type = 'text/csv;charset=utf-8'): void {
  // A CSV starts with a byte order mark, as the doors' downloads do: one rule for both (src-shared/download-prefix.ts).
  const prefix = downloadPrefix(type);
  downloadBlob(fileName, new Blob(prefix ? [prefix, text] : [text], { type }));
}

/** Saves bytes the console holds (built here, or fetched from its door) as a file. */
export function downloadBlob(fileName: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.appendChild(a);
  a.click();
  a.remove();
  // Revoke after the click has been handled; revoking synchronously can cancel the download in some engines.
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
