// Browser-side file download: the console builds exports itself, so no file ever goes through the service.
/** Saves text as a file through a temporary Blob URL (no server round trip, works in Electron and the browser). */
export function downloadText(fileName: string, text: string, type = 'text/csv;charset=utf-8'): void {
  // The BOM makes spreadsheet apps read a CSV as UTF-8 instead of the system code page; other files (JSON) get none.
  const url = URL.createObjectURL(new Blob(type.startsWith('text/csv') ? ['\uFEFF', text] : [text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.appendChild(a);
  a.click();
  a.remove();
  // Revoke after the click has been handled; revoking synchronously can cancel the download in some engines.
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
