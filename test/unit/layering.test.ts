// Enforces the layering rules of STYLE.md by reading the import statements of every .ts/.tsx source file:
// src-shared stays pure, the renderer never reaches Node or the main process, electron only in src-main/electron,
// and core/ depends on neither fastify nor electron. A failure names the file and the import.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

function sourceFiles(dir: string): string[] {
  const abs = join(ROOT, dir);
  let entries: string[];
  try {
    entries = readdirSync(abs);
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const e of entries) {
    if (e === 'node_modules' || e.startsWith('.')) continue;
    const p = join(abs, e);
    if (statSync(p).isDirectory()) out.push(...sourceFiles(relative(ROOT, p)));
    else if (/\.(ts|tsx|mts|cts)$/.test(e) && !e.endsWith('.d.ts')) out.push(relative(ROOT, p).split(sep).join('/'));
  }
  return out;
}

/** Every module specifier of a file: static imports/exports (type-only too), side-effect imports, import(), require(). */
function importsOf(code: string): string[] {
  const stripped = code.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  const specs: string[] = [];
  const patterns = [
    /\b(?:import|export)\s+(?:type\s+)?[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const re of patterns) for (const m of stripped.matchAll(re)) specs.push(m[1]!);
  return specs;
}

/** Where a relative specifier points, as a repository path; bare specifiers are returned unchanged. */
function target(file: string, spec: string): string {
  if (!spec.startsWith('.')) return spec;
  return relative(ROOT, resolve(ROOT, file, '..', spec)).split(sep).join('/');
}

const BUILTINS = new Set(builtinModules.filter((m) => !m.startsWith('_')));
const isNode = (s: string) => s.startsWith('node:') || BUILTINS.has(s) || BUILTINS.has(s.split('/')[0]!);
const isPkg = (s: string, name: string) => s === name || s.startsWith(`${name}/`);
const isFastify = (s: string) => isPkg(s, 'fastify') || s.startsWith('@fastify/') || s.startsWith('fastify-');
const under = (t: string, dir: string) => t === dir || t.startsWith(`${dir}/`);

interface Rule {
  name: string;
  applies: (file: string) => boolean;
  forbidden: (spec: string, resolved: string) => boolean;
}

const RULES: Rule[] = [
  {
    name: 'src-shared is pure (no src-main, src-renderer, Node built-ins, electron, fastify or better-sqlite3)',
    applies: (f) => under(f, 'src-shared'),
    forbidden: (s, t) =>
      under(t, 'src-main') || under(t, 'src-renderer') || isNode(s) || isPkg(s, 'electron') || isFastify(s) || isPkg(s, 'better-sqlite3'),
  },
  {
    name: 'src-renderer never imports Node built-ins, electron or src-main',
    applies: (f) => under(f, 'src-renderer'),
    forbidden: (s, t) => under(t, 'src-main') || isNode(s) || isPkg(s, 'electron'),
  },
  {
    name: 'only src-main/electron/ imports electron',
    applies: (f) => !under(f, 'src-main/electron'),
    forbidden: (s) => isPkg(s, 'electron'),
  },
  {
    name: 'src-main/core/ imports neither fastify nor electron',
    applies: (f) => under(f, 'src-main/core'),
    forbidden: (s) => isFastify(s) || isPkg(s, 'electron'),
  },
];

function violations(files: { file: string; code: string }[]): string[] {
  const out: string[] = [];
  for (const { file, code } of files) {
    for (const spec of importsOf(code)) {
      const t = target(file, spec);
      for (const r of RULES) if (r.applies(file) && r.forbidden(spec, t)) out.push(`${file}: import '${spec}' breaks rule: ${r.name}`);
    }
  }
  return out;
}

const FILES = ['src-shared', 'src-main', 'src-renderer'].flatMap(sourceFiles).map((file) => ({ file, code: readFileSync(join(ROOT, file), 'utf8') }));

describe('layering', () => {
  it('finds the source files and their imports', () => {
    expect(FILES.some((f) => f.file.startsWith('src-shared/'))).toBe(true);
    expect(FILES.some((f) => f.file.startsWith('src-main/core/'))).toBe(true);
    // The reader really sees imports (a reader that finds none would pass every rule).
    const service = FILES.find((f) => f.file === 'src-main/service.ts');
    expect(service && importsOf(service.code)).toEqual(expect.arrayContaining(['node:crypto', 'fastify', './core/clock']));
  });

  it('the source tree breaks no layering rule', () => {
    const found = violations(FILES);
    if (found.length > 0) console.error(`Layering violations:\n  ${found.join('\n  ')}`);
    expect(found, found.join('\n')).toEqual([]);
  });

  it('each rule catches what it forbids (checked on synthetic files)', () => {
    const bad = [
      { file: 'src-shared/x.ts', code: "import { readFileSync } from 'node:fs';" },
      { file: 'src-shared/y.ts', code: "import type { Db } from '../src-main/store/database';" },
      { file: 'src-shared/z.ts', code: "import path from 'path';\nexport * from 'fastify';" },
      { file: 'src-shared/w.ts', code: "const D = await import('better-sqlite3');" },
      { file: 'src-renderer/app.tsx', code: "import { ipcRenderer } from 'electron';" },
      { file: 'src-renderer/b.ts', code: "import {\n  x,\n} from '../src-main/service';" },
      { file: 'src-main/http/app.ts', code: "import { app } from 'electron';" },
      { file: 'src-main/core/c.ts', code: "import type { FastifyInstance } from 'fastify';" },
      { file: 'src-main/core/d.ts', code: "import swagger from '@fastify/swagger';" },
    ];
    const found = violations(bad);
    for (const f of bad) expect(found.some((v) => v.startsWith(`${f.file}:`)), f.file).toBe(true);
    const good = [
      { file: 'src-shared/ok.ts', code: "import { z } from 'zod';\nimport { x } from './errors';\n// import 'node:fs' in a comment\n" },
      { file: 'src-main/electron/main.ts', code: "import { app } from 'electron';" },
      { file: 'src-main/http/app.ts', code: "import Fastify from 'fastify';\nimport { x } from '../core/clock';" },
      { file: 'src-renderer/ok.tsx', code: "import { CHANNELS } from '../src-shared/channels';" },
    ];
    expect(violations(good)).toEqual([]);
  });
});
