// Runs Doyensec's Electronegativity over the Electron sources and the built main + preload, offline, and fails on
// any HIGH finding (printing every finding). Part of `npm run lint`; excluded checks are justified in docs/packaging.md.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';

const require = createRequire(import.meta.url);
const root = resolve(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..');

/** Checks not run, each with its reason in docs/packaging.md ("Electronegativity"). Keep this list short. */
export const EXCLUDED_CHECKS = [];

// The tool fetches translations and Electron's release list over the network at every run; here that either hangs
// until a timeout or fails. Its `got` is replaced by an immediate rejection, which both call sites already handle.
const enDir = require.resolve('@doyensec/electronegativity/dist/runner.js');
for (const from of [join(enDir, '../locales/i18n.js'), join(enDir, '../finder/checks/GlobalChecks/AvailableSecurityFixesGlobalCheck.js')]) {
  if (!existsSync(from)) continue;
  const gotPath = createRequire(from).resolve('got');
  const offline = () => Promise.reject(new Error('offline: network disabled for lint'));
  offline.head = offline;
  offline.get = offline;
  require.cache[gotPath] = { id: gotPath, filename: gotPath, loaded: true, exports: offline };
}
process.env.LANG = 'en-US';
const run = require('@doyensec/electronegativity/dist/runner.js');

// Its console noise about the (disabled) network is not a finding.
const quiet = async (fn) => {
  const log = console.log;
  console.log = (...a) => {
    if (!/translations|Electron's (new )?releases|connectivity/i.test(String(a[0]))) log(...a);
  };
  try {
    return await fn();
  } finally {
    console.log = log;
  }
};

function ensureBuilt() {
  if (existsSync(join(root, 'out/main/index.js')) && existsSync(join(root, 'out/preload/index.cjs'))) return;
  console.log('electronegativity: out/ missing, building (electron-vite build)…');
  const r = spawnSync(process.execPath, [join(root, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

async function scan(label, input, electronVersion) {
  const result = await quiet(() => run({ input, electronVersionOverride: electronVersion, excludeFromScan: EXCLUDED_CHECKS, customScan: [] }, false));
  const errors = result.errors.filter((e) => !e.tolerable);
  return { label, issues: result.issues, errors };
}

const electronVersion = JSON.parse(readFileSync(join(root, 'node_modules/electron/package.json'), 'utf8')).version;
ensureBuilt();

// The built main and preload are scanned together, so the global checks (navigation limits, permission handler,
// CSP) see the whole main-process side; the renderer bundle holds no Electron API and is left out for speed.
const staged = mkdtempSync(join(tmpdir(), 'vc-eneg-'));
cpSync(join(root, 'out/main/index.js'), join(staged, 'main/index.js'));
cpSync(join(root, 'out/preload/index.cjs'), join(staged, 'preload/index.js'));

let reports;
try {
  reports = [await scan('src-main/electron', join(root, 'src-main/electron'), electronVersion), await scan('out (main + preload)', staged, electronVersion)];
} finally {
  rmSync(staged, { recursive: true, force: true });
}

let high = 0;
for (const r of reports) {
  console.log(`electronegativity: ${r.label}: ${r.issues.length} finding(s)`);
  for (const i of r.issues) {
    const file = i.file === 'N/A' ? '(global)' : relative(root, i.file).replace(/^\.\.\/.*vc-eneg-[^/]+\//, 'out/');
    const sev = i.severity?.name ?? String(i.severity);
    if (sev === 'HIGH') high++;
    console.log(`  ${sev.padEnd(13)} ${String(i.confidence?.name ?? '').padEnd(9)} ${i.id}  ${file}:${i.location?.line ?? 0}${i.manualReview ? '  (manual review)' : ''}`);
  }
  for (const e of r.errors) console.log(`  PARSE ERROR  ${relative(root, e.file)}: ${e.message}`);
  if (r.errors.length > 0) high += r.errors.length;
}
if (high > 0) {
  console.error(`electronegativity: ${high} HIGH finding(s) or parse error(s) — fix them or justify an exclusion in docs/packaging.md.`);
  process.exit(1);
}
console.log('electronegativity: no HIGH finding.');
