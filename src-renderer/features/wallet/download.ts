// Browser-side file download: a file the console built itself, or one the web door served (the audit export).
/** Saves text as a file through a temporary Blob URL (no server round trip, works in Electron and the browser). */
export function downloadText(fileName: string, text: string, type = 'text/csv;charset=utf-8'): void {
  // The BOM makes spreadsheet apps read a CSV as UTF-8 instead of the system code page; other files (JSON) get none.
  downloadBlob(fileName, new Blob(type.startsWith('text/csv') ? ['\uFEFF', text] : [text], { type }));
}

/** Saves bytes the console holds (built here, or fetched from the web door) as a file. */
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
