// The name of a file the console downloads, read off its Content-Disposition (kept apart from bridge.ts, which
// needs a browser, so that it can be tested on its own).

/**
 * The file name a Content-Disposition gives: RFC 6266's `filename*=UTF-8''…` first (the name as it is, ümlauts and
 * all), then the ASCII `filename="…"` beside it, then "download".
 */
export function downloadFilename(header: string | null): string {
  const extended = /filename\*\s*=\s*UTF-8''([^;\s]+)/i.exec(header ?? '')?.[1];
  if (extended) {
    try {
      return decodeURIComponent(extended);
    } catch {
      // A malformed escape: the plain name below is the better answer.
    }
  }
  return /filename="([^"]+)"/.exec(header ?? '')?.[1] ?? 'download';
}
