// What a file the console hands the user to save starts with, by its media type: one rule for every door that makes
// one (the web door's and the desktop app's streamed audit export, the files the renderer builds itself).

/**
 * The text a downloaded file of this media type starts with: a byte order mark for a CSV, so spreadsheet apps read it
 * as UTF-8 instead of the system code page; nothing for anything else (a JSON parser may refuse a BOM). Parameters
 * (`;charset=utf-8`) and the letters' case do not matter, as in any media type.
 */
export function downloadPrefix(mediaType: string): string {
  const essence = mediaType.split(';', 1)[0]!.trim().toLowerCase();
  return essence === 'text/csv' ? '\uFEFF' : '';
}
