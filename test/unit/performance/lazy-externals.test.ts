// The built main process loads some packages on first use (src-main/lazy-externals, aliased in
// electron.vite.config.ts; docs/performance.md, "Cold start"). vitest runs the sources against the real packages,
// so these checks are what keeps the stand-ins honest: each one imports its package for types only, exports every
// name the sources import from it, and answers exactly as the package does.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as realIban from 'ibantools';
import realCountries from 'i18n-iso-countries';
import * as realPhone from 'libphonenumber-js';
import * as realJose from 'jose';
import realPapa from 'papaparse';
import * as realUndici from 'undici';
import * as iban from '../../../src-main/lazy-externals/ibantools';
import countries from '../../../src-main/lazy-externals/i18n-iso-countries';
import * as phone from '../../../src-main/lazy-externals/libphonenumber-js';
import * as jose from '../../../src-main/lazy-externals/jose';
import Papa from '../../../src-main/lazy-externals/papaparse';
import * as undici from '../../../src-main/lazy-externals/undici';

const ROOT = resolve(import.meta.dirname, '../../..');
const MODULES: Record<string, Record<string, unknown>> = {
  undici,
  jose,
  'libphonenumber-js': phone,
  'i18n-iso-countries': { default: countries },
  ibantools: iban,
  papaparse: { default: Papa },
};
const DIR = 'src-main/lazy-externals';
const STANDS_IN = readdirSync(join(ROOT, DIR))
  .filter((f) => f.endsWith('.ts') && f !== 'load.ts')
  .map((f) => f.replace(/\.ts$/, ''));

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(ROOT, dir))) {
    const p = join(ROOT, dir, e);
    if (statSync(p).isDirectory()) out.push(...sources(relative(ROOT, p)));
    else if (/\.tsx?$/.test(e) && !e.endsWith('.d.ts')) out.push(relative(ROOT, p).split(sep).join('/'));
  }
  return out;
}

/** The value bindings a file imports from `pkg`: named ones by their exported name, and 'default'. */
function valueImports(code: string, pkg: string): string[] {
  const names: string[] = [];
  const re = new RegExp(`\\bimport\\s+(?!type\\b)([^;]*?)\\s+from\\s*['"]${pkg.replace(/[.]/g, '\\.')}['"]`, 'g');
  for (const m of code.matchAll(re)) {
    const clause = m[1]!;
    const named = /\{([^}]*)\}/.exec(clause)?.[1] ?? '';
    const def = clause.replace(/\{[^}]*\}/, '').replace(/,/g, '').trim();
    if (def && !def.startsWith('*')) names.push('default');
    if (def.startsWith('*')) names.push('*');
    for (const part of named.split(',').map((p) => p.trim()).filter(Boolean)) {
      if (part.startsWith('type ')) continue;
      names.push(part.split(/\s+as\s+/)[0]!);
    }
  }
  return names;
}

describe('lazy externals (the built main process loads these packages on first use)', () => {
  it('the build aliases exactly the packages that have a stand-in', () => {
    const config = readFileSync(join(ROOT, 'electron.vite.config.ts'), 'utf8');
    const listed = /const LAZY_EXTERNALS = \[([^\]]*)\]/.exec(config)?.[1] ?? '';
    expect([...listed.matchAll(/'([^']+)'/g)].map((m) => m[1]).sort()).toEqual([...STANDS_IN].sort());
  });

  it('each stand-in imports its package for types only (so nothing loads it at start)', () => {
    for (const pkg of STANDS_IN) {
      const code = readFileSync(join(ROOT, DIR, `${pkg}.ts`), 'utf8');
      expect(valueImports(code, pkg), `${DIR}/${pkg}.ts`).toEqual([]);
      expect(code, `${DIR}/${pkg}.ts`).toContain(`lazyPackage<`);
    }
  });

  it('each stand-in exports every name the main-process sources import from its package', () => {
    const files = [...sources('src-main'), ...sources('src-shared')].filter((f) => !f.startsWith(DIR));
    expect(Object.keys(MODULES).sort()).toEqual([...STANDS_IN].sort());
    for (const pkg of STANDS_IN) {
      const stand = MODULES[pkg]!;
      let used = 0;
      for (const f of files) {
        for (const name of valueImports(readFileSync(join(ROOT, f), 'utf8'), pkg)) {
          used++;
          expect(name, `${f} imports * from ${pkg}: the stand-in cannot know which names`).not.toBe('*');
          expect(stand[name], `${f} imports ${name} from ${pkg}, which ${DIR}/${pkg}.ts does not export`).toBeDefined();
        }
      }
      // A package nothing imports any more needs no stand-in (and this check would pass vacuously).
      expect(used, `nothing in src-main or src-shared imports ${pkg}`).toBeGreaterThan(0);
    }
  });

  it('answers as the packages do', async () => {
    expect(phone.parsePhoneNumberFromString('+44 7400 123456', 'GB')?.number).toBe(realPhone.parsePhoneNumberFromString('+44 7400 123456', 'GB')?.number);
    expect(phone.getCountryCallingCode('GH')).toBe(realPhone.getCountryCallingCode('GH'));
    expect(countries.isValid('DE')).toBe(true);
    expect(countries.isValid('XX')).toBe(realCountries.isValid('XX'));
    expect(iban.isValidIBAN('GB82WEST12345698765432')).toBe(realIban.isValidIBAN('GB82WEST12345698765432'));
    expect(iban.electronicFormatIBAN('gb82 west 1234 5698 7654 32')).toBe(realIban.electronicFormatIBAN('gb82 west 1234 5698 7654 32'));
    expect(iban.validateIBAN('GB82WEST12345698765433')).toEqual(realIban.validateIBAN('GB82WEST12345698765433'));
    expect(iban.getCountrySpecifications()['DE']).toEqual(realIban.getCountrySpecifications()['DE']);
    expect(iban.ValidationErrorsIBAN.WrongBBANFormat).toBe(realIban.ValidationErrorsIBAN.WrongBBANFormat);
    const csv = 'a;b\n1;2\n';
    expect(Papa.parse(csv, { delimitersToGuess: [',', ';'] }).meta.delimiter).toBe(realPapa.parse(csv, { delimitersToGuess: [',', ';'] }).meta.delimiter);
    const key = new TextEncoder().encode('k'.repeat(32));
    const sign = (S: typeof realJose.SignJWT) => new S({ sid: 's' }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt(1_700_000_000).setIssuer('i').sign(key);
    expect(await sign(jose.SignJWT)).toBe(await sign(realJose.SignJWT));
    const agent = new undici.Agent({ connect: { timeout: 1_000 } });
    expect(agent).toBeInstanceOf(realUndici.Agent);
    await agent.close();
    expect(typeof undici.buildConnector({ timeout: 1_000 })).toBe('function');
  });
});
