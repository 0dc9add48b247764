// The Content-Disposition of a file the console downloads: the name as it is, in RFC 5987's `filename*=UTF-8''…`
// (RFC 6266), beside an ASCII `filename="…"` for clients that read only that one — so "ümlaut.csv" keeps its ü.

/** `attachment; filename="<ASCII stand-in>"; filename*=UTF-8''<percent-encoded name>`. */
export function attachmentDisposition(name: string): string {
  // The fallback: letters outside ASCII lose their accents (ü → u) and anything else unsafe in a quoted string goes.
  const ascii =
    name
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(/[^\w.-]+/g, '_') || 'download';
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeRfc5987(name)}`;
}

/** RFC 5987 `value-chars`: UTF-8 percent-encoded, leaving only attr-char unescaped (encodeURIComponent leaves a few more). */
function encodeRfc5987(s: string): string {
  return encodeURIComponent(s).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
