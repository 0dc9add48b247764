// Batch-CSV throughput benchmark: papaparse parse-only (baseline) vs. validateCsvFile end to end on a generated file.
// Each phase runs in its own child process so its peak RSS is its own; phases alternate over rounds and medians are
// reported, since the machine is shared. Usage: npx tsx bench/batch-csv.bench.ts [--rows N] [--rounds N]
//
// The baseline is papaparse 5.7 in step mode over the same file, same process model (a fresh `node --import tsx`
// child, timed from after its imports), reading a utf8 fs stream at papaparse's default chunk size (64 KiB): with
// the engine's 256 KiB chunks papaparse was slower (660-800 ms against 490-580 ms), so the default is the stronger
// baseline. `validate` writes both result files (about 150 MB for 1M rows), which the baseline does not.
import { spawnSync } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Papa from 'papaparse';
import { generateRoutingCsv } from './lib/routing-csv';
import { CsvRecordParser } from '../src-main/core/routing/csv-reader';
import { validateCsvFile } from '../src-main/core/routing/csv-batch';
import { runCsvBatchInWorker } from '../src-main/core/routing/run-batch-in-worker';

/** `worker` is the production path: the same engine in a worker thread, RSS of the whole process. */
type Phase = 'papaparse' | 'reader' | 'validate' | 'worker';
const PHASES: readonly Phase[] = ['papaparse', 'reader', 'validate', 'worker'];
interface PhaseResult {
  phase: Phase;
  rows: number;
  ms: number;
  /** CPU time (user + system) of the phase's process while it ran: steadier than wall time on a loaded machine. */
  cpuMs: number;
  rowsPerSecond: number;
  peakRssMb: number;
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i === -1 ? undefined : process.argv[i + 1];
}

async function runPhase(phase: Phase, file: string, dir: string): Promise<PhaseResult> {
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 10);
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  let rows = 0;
  if (phase === 'papaparse') {
    await new Promise<void>((resolve, reject) => {
      Papa.parse(createReadStream(file, { encoding: 'utf8' }), {
        step: () => {
          rows++;
        },
        complete: () => resolve(),
        error: (e: Error) => reject(e),
      });
    });
    rows--; // header
  } else if (phase === 'reader') {
    const parser = new CsvRecordParser(() => {
      rows++;
    });
    for await (const chunk of createReadStream(file, { encoding: 'utf8', highWaterMark: 256 * 1024 })) parser.push(chunk as string);
    parser.end();
    rows--;
  } else if (phase === 'worker') {
    const summary = await runCsvBatchInWorker({
      input: file,
      output: join(dir, 'result-w.csv'),
      invalidOnlyOutput: join(dir, 'invalid-w.csv'),
      directory: null,
      sandbox: true,
    }).promise;
    rows = summary.rows;
  } else {
    const summary = await validateCsvFile({
      input: file,
      output: join(dir, 'result.csv'),
      invalidOnlyOutput: join(dir, 'invalid.csv'),
      directory: null,
      sandbox: true,
    });
    rows = summary.rows;
  }
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  return {
    phase,
    rows,
    ms: Math.round(ms),
    cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    rowsPerSecond: Math.round(rows / (ms / 1000)),
    peakRssMb: Math.round(peak / 2 ** 20),
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
}

async function main(): Promise<void> {
  const phase = arg('--phase') as Phase | undefined;
  if (phase) {
    const result = await runPhase(phase, arg('--file') ?? '', arg('--dir') ?? tmpdir());
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  const rows = Number(arg('--rows') ?? 1_000_000);
  const dir = await mkdtemp(join(tmpdir(), 'batch-csv-bench-'));
  const file = join(dir, 'input.csv');
  try {
    await generateRoutingCsv(file, rows);
    const size = (await stat(file)).size;
    console.log(`generated ${rows} rows, ${(size / 2 ** 20).toFixed(1)} MiB in ${dir}`);
    const self = fileURLToPath(import.meta.url);
    const rounds = Math.max(1, Number(arg('--rounds') ?? 5));
    const all: PhaseResult[] = [];
    for (let round = 1; round <= rounds; round++) {
      for (const p of PHASES) {
        const child = spawnSync(process.execPath, ['--import', 'tsx', self, '--phase', p, '--file', file, '--dir', dir], {
          encoding: 'utf8',
          maxBuffer: 1 << 20,
        });
        if (child.status !== 0) throw new Error(`phase ${p} failed: ${child.stderr}`);
        const line = child.stdout.trim().split('\n').pop() ?? '';
        const r = JSON.parse(line) as PhaseResult;
        all.push(r);
        console.log(
          `round ${round} ${p.padEnd(10)} ${r.ms} ms  cpu ${r.cpuMs} ms  ${r.rowsPerSecond.toLocaleString('en-US')} rows/s  peak RSS ${r.peakRssMb} MB`,
        );
      }
    }
    const results = PHASES.map((phase) => {
      const rs = all.filter((r) => r.phase === phase);
      return {
        phase,
        rows: rs[0]?.rows ?? 0,
        ms: median(rs.map((r) => r.ms)),
        cpuMs: median(rs.map((r) => r.cpuMs)),
        rowsPerSecond: Math.round(median(rs.map((r) => r.rowsPerSecond))),
        peakRssMb: median(rs.map((r) => r.peakRssMb)),
        maxPeakRssMb: Math.max(...rs.map((r) => r.peakRssMb)),
      };
    });
    console.log(`\nmedians over ${rounds} rounds:`);
    console.log('| phase | rows/s | wall ms | cpu ms | peak RSS MB (median / max) |');
    console.log('|---|---|---|---|---|');
    for (const r of results) {
      console.log(`| ${r.phase} | ${r.rowsPerSecond.toLocaleString('en-US')} | ${r.ms} | ${r.cpuMs} | ${r.peakRssMb} / ${r.maxPeakRssMb} |`);
    }
    const base = results.find((r) => r.phase === 'papaparse');
    const val = results.find((r) => r.phase === 'validate');
    const wrk = results.find((r) => r.phase === 'worker');
    const ratio = base && val ? val.rowsPerSecond / base.rowsPerSecond : null;
    const workerRatio = base && wrk ? wrk.rowsPerSecond / base.rowsPerSecond : null;
    const cpuRatio = base && val && val.cpuMs > 0 ? base.cpuMs / val.cpuMs : null;
    console.log(
      `validate / papaparse-parse-only speed ratio: ${ratio?.toFixed(2)} (target >= 0.50; in a worker thread ${workerRatio?.toFixed(2)}; ` +
        `by CPU time ${cpuRatio?.toFixed(2)}); peak RSS ${val?.maxPeakRssMb} MB, in a worker ${wrk?.maxPeakRssMb} MB (target < 200)`,
    );
    const outDir = join(fileURLToPath(new URL('.', import.meta.url)), 'results');
    await mkdir(outDir, { recursive: true });
    await writeFile(
      join(outDir, 'batch-csv.json'),
      `${JSON.stringify({ date: new Date().toISOString(), node: process.version, cpus: cpus().length, loadAverage: loadavg().map((x) => Math.round(x * 100) / 100), rows, bytes: size, rounds, results, ratio, workerRatio, cpuRatio, runs: all }, null, 2)}\n`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
