// The generated routing file both batch benchmarks read (5: batch CSV, 7: event-loop delay while a batch runs).
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';

const BICS = ['DEUTDEFF', 'CHASUS33', 'BARCGB22', 'BNPAFRPP', 'CITIUS33', 'DEUTDEFF500', 'TSTBGB20', 'UNKNGB2L', 'DEUT12FF', 'hsbcgb2l'];
const ABAS = ['021000021', '026009593', '011000015', '121000248', '021000022', '12345678', '071000013'];
const ROUTES: [string, string, string][] = [
  ['DEUTDEFF', 'CHASUS33', 'USD'],
  ['BNPAFRPP', 'HSBCGB2L', 'USD'],
  ['COBADEFF', 'CHASUS33', 'GBP'],
  ['BARCGB22', 'BNPAFRPP', 'EUR'],
];

function letters(n: number): string {
  let s = '';
  for (let k = 0; k < 4; k++) {
    s += String.fromCharCode(65 + (n % 26));
    n = Math.floor(n / 26);
  }
  return s;
}

/** A distinct, checksum-valid routing number per n (prefix 02), so a quarter of the rows are never repeated. */
function uniqueAba(n: number): string {
  const body = `02${String(n % 1_000_000).padStart(6, '0')}`;
  const w = [3, 7, 1, 3, 7, 1, 3, 7];
  let sum = 0;
  for (let k = 0; k < 8; k++) sum += Number(body[k]) * (w[k] ?? 0);
  return `${body}${(10 - (sum % 10)) % 10}`;
}

/**
 * Streams a mixed file (50% BIC, 30% routing, 20% route rows; some malformed, some quoted) to disk. Three rows in
 * four repeat well-known identifiers, as real payment files do; every fourth row carries an identifier seen once.
 */
export async function generateRoutingCsv(file: string, rows: number): Promise<void> {
  const out = createWriteStream(file);
  let buf = 'type,bic,routing_number,from_bic,to_bic,currency,reference\n';
  for (let i = 0; i < rows; i++) {
    const k = i % 10;
    const ref = i % 7 === 0 ? `"ref ${i}, batch ""A"""` : `ref-${i}`;
    const unique = i % 4 === 3;
    if (k < 5) buf += `bic,${unique ? `${letters(i)}US33` : BICS[i % BICS.length]},,,,,${ref}\n`;
    else if (k < 8) buf += `routing,,${unique ? uniqueAba(i) : ABAS[i % ABAS.length]},,,,${ref}\n`;
    else {
      const r = ROUTES[i % ROUTES.length] ?? ROUTES[0]!;
      buf += `route,,,${unique ? `${letters(i)}DEFF` : r[0]},${r[1]},${r[2]},${ref}\n`;
    }
    if (buf.length > 1 << 16) {
      if (!out.write(buf)) await once(out, 'drain');
      buf = '';
    }
  }
  out.end(buf);
  await once(out, 'finish');
}
