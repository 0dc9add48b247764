// `vconsole routing import` and `vconsole batch validate` (decisions §11): a live routing directory into the store,
// and a streaming batch-CSV validation with a progress bar. Batch exit codes: 0 all valid, 1 some invalid, 2 unusable.
import { existsSync, realpathSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import type { DirectoryKind } from '../../src-shared/schemas/routing';
import type { BatchProgress, BatchSummary } from '../core/routing/csv-batch';
import { CsvInputProblem, parseDelimiterOption, parseEncodingOption, planCsvInput, validateCsvInput, type CsvInputOptions, type CsvInputPlan } from '../core/routing/csv-input';
import type { RoutingDirectory } from '../core/routing/directory';
import { createStoreDirectory, importDirectoryCsv, liveDirectoryRef } from '../core/routing/directory-store';
import type { ExtraCommand } from './extra-commands';

const KINDS: readonly DirectoryKind[] = ['bic', 'aba', 'correspondents'];

export const routingCommand: ExtraCommand = {
  name: 'routing',
  usage: 'vconsole routing import FILE.csv [--kind bic|aba|correspondents] [--name NAME] [--data-dir DIR] [--json]',
  async run(args, kit) {
    const [sub, ...rest] = args;
    if (sub !== 'import') return usage('routing: expected `import FILE.csv`');
    const { values, positionals } = kit.parse(rest, { kind: { type: 'string' }, name: { type: 'string' } });
    const file = positionals[0];
    if (!file) return usage('routing import: give the CSV file to import');
    const kind = values['kind'];
    if (kind !== undefined && !KINDS.includes(kind as DirectoryKind)) return usage('--kind must be bic, aba or correspondents');
    if (!existsSync(file)) return usage(`routing import: no file at ${file}`);
    const name = typeof values['name'] === 'string' ? values['name'] : undefined;
    const res = await kit.withCore(values, async (core) =>
      importDirectoryCsv(core.deps, (await kit.ownerPrincipal(core, 'live')).organizationId, { path: file, ...(name ? { name } : {}) }, kind as DirectoryKind | undefined),
    );
    const lines = [
      `Imported ${res.rows} ${res.kind} directory row(s) from ${res.name} (${res.id}); it now answers live ${res.kind === 'aba' ? 'routing-number' : res.kind === 'bic' ? 'BIC' : 'correspondent'} checks.`,
    ];
    if (res.errors > 0) {
      lines.push(`${res.errors} row(s) were refused:`);
      for (const e of res.rowErrors.slice(0, 20)) lines.push(`  line ${e.line}: ${e.message}`);
      if (res.errors > 20) lines.push(`  … and ${res.errors - 20} more (see --json).`);
    }
    kit.print(values, res, lines.join('\n'));
    return 0;
  },
};

function usage(message: string): number {
  process.stderr.write(`vconsole: ${message}\nRun \`vconsole help\` for usage.\n`);
  return 2;
}

function defaultOut(input: string): string {
  const ext = extname(input);
  return join(dirname(input), `${basename(input, ext)}.results.csv`);
}

/**
 * Which file a path names, whatever its spelling: an existing file by device and inode (so a symlink or a hard link
 * is the file it leads to), a file still to be made by the real path of its folder and its name.
 */
function fileIdentity(path: string): string {
  try {
    const st = statSync(path);
    return `inode:${st.dev}:${st.ino}`;
  } catch {
    const abs = resolve(path);
    let folder = dirname(abs);
    try {
      folder = realpathSync(folder);
    } catch {
      // A folder that does not exist: writing there fails later, with its own message.
    }
    return `path:${join(folder, basename(abs))}`;
  }
}

/** A temp file beside `target` (same folder, so the final rename is atomic), renamed into place only on success. */
function tempBeside(target: string): string {
  return join(dirname(target), `.${basename(target)}.${process.pid}.${Date.now().toString(36)}.part`);
}

function formatEta(s: number | null): string {
  if (s === null || !Number.isFinite(s)) return '--';
  if (s < 60) return `${Math.ceil(s)}s`;
  return `${Math.floor(s / 60)}m${String(Math.ceil(s % 60)).padStart(2, '0')}s`;
}

function progressLine(p: BatchProgress, width: number): string {
  const filled = Math.round((p.percent / 100) * width);
  const bar = `${'#'.repeat(filled)}${'.'.repeat(width - filled)}`;
  return `[${bar}] ${p.percent.toFixed(1).padStart(5)}%  ${p.rows.toLocaleString('en-US')} rows  ${Math.round(p.rowsPerSecond).toLocaleString('en-US')} rows/s  ETA ${formatEta(p.etaSeconds)}`;
}

/** A TTY gets one redrawn bar; a pipe or log file gets a plain line every couple of seconds. */
function progressReporter(json: boolean): { onProgress: (p: BatchProgress) => void; end(): void } {
  const err = process.stderr;
  if (json) return { onProgress: () => {}, end: () => {} };
  if (err.isTTY) {
    let drawn = false;
    return {
      onProgress: (p) => {
        err.write(`\r${progressLine(p, 30)}\x1b[K`);
        drawn = true;
      },
      end: () => {
        if (drawn) err.write('\n');
      },
    };
  }
  let last = 0;
  return {
    onProgress: (p) => {
      const now = Date.now();
      if (now - last < 2000 && p.percent < 100) return;
      last = now;
      err.write(`progress: ${p.percent.toFixed(1)}% ${p.rows} rows ${Math.round(p.rowsPerSecond)} rows/s ETA ${formatEta(p.etaSeconds)}\n`);
    },
    end: () => {},
  };
}

function summaryText(s: BatchSummary, out: string, invalidOut: string | undefined, directory: string): string {
  const lines = [`Checked ${s.rows} row(s) against ${directory}: ${s.valid} valid, ${s.invalid} invalid (${(s.durationMs / 1000).toFixed(1)} s).`];
  const reasons = Object.entries(s.reasons).sort((a, b) => b[1] - a[1]);
  if (reasons.length > 0) lines.push(`Reasons: ${reasons.map(([code, n]) => `${code} ${n}`).join(', ')}`);
  lines.push(`Results: ${out}`);
  if (invalidOut) lines.push(`Invalid rows: ${invalidOut}`);
  return lines.join('\n');
}

export const batchCommand: ExtraCommand = {
  name: 'batch',
  usage:
    'vconsole batch validate FILE.csv [--out RESULT.csv] [--invalid-out FILE.csv] [--column NAME|N] [--delimiter , ; tab |] [--encoding utf8|latin1|utf16le|utf16be] [--header | --no-header] [--live] [--data-dir DIR] [--json]',
  async run(args, kit) {
    const [sub, ...rest] = args;
    if (sub !== 'validate') return usage('batch: expected `validate FILE.csv`');
    const { values, positionals } = kit.parse(rest, {
      out: { type: 'string' },
      'invalid-out': { type: 'string' },
      live: { type: 'boolean' },
      column: { type: 'string' },
      delimiter: { type: 'string' },
      encoding: { type: 'string' },
      header: { type: 'boolean' },
      'no-header': { type: 'boolean' },
    });
    const input = positionals[0];
    if (!input) return usage('batch validate: give the CSV file to check');
    try {
      if (!statSync(input).isFile()) return usage(`batch validate: ${input} is not a file`);
    } catch {
      return usage(`batch validate: no readable file at ${input}`);
    }
    const out = typeof values['out'] === 'string' ? values['out'] : defaultOut(input);
    const invalidOut = typeof values['invalid-out'] === 'string' ? values['invalid-out'] : undefined;
    // Compared as files, not as strings: `./FILE`, an absolute path or a symlink to the input is the input.
    const inputId = fileIdentity(input);
    if (fileIdentity(out) === inputId || (invalidOut !== undefined && fileIdentity(invalidOut) === inputId)) {
      return usage('batch validate: the output must not overwrite the input');
    }
    if (invalidOut !== undefined && fileIdentity(invalidOut) === fileIdentity(out)) return usage('batch validate: --out and --invalid-out must be different files');
    const json = values['json'] === true;
    const live = values['live'] === true;
    // The input rules (csv-input.ts): how to read the file, or exit 2 naming the problem and the option that fixes it.
    let plan: CsvInputPlan;
    try {
      if (values['header'] === true && values['no-header'] === true) return usage('batch validate: give --header or --no-header, not both');
      const csv: CsvInputOptions = {
        ...(typeof values['encoding'] === 'string' ? { encoding: parseEncodingOption(values['encoding']) } : {}),
        ...(typeof values['delimiter'] === 'string' ? { delimiter: parseDelimiterOption(values['delimiter']) } : {}),
        ...(typeof values['column'] === 'string' ? { column: values['column'] } : {}),
        ...(values['header'] === true ? { header: true } : values['no-header'] === true ? { header: false } : {}),
      };
      plan = planCsvInput(input, csv, 'cli');
    } catch (e) {
      if (e instanceof CsvInputProblem) return usage(`batch validate: ${e.message}`);
      throw e;
    }
    if (!json) for (const note of plan.notes) process.stderr.write(`note: ${note}\n`);

    const run = async (directory: RoutingDirectory | null, label: string): Promise<number> => {
      const progress = progressReporter(json);
      const controller = new AbortController();
      const onSigint = () => controller.abort();
      process.once('SIGINT', onSigint);
      let summary: BatchSummary & { notes: string[] };
      const notesBefore = plan.notes.length;
      // The results are written to temp files beside the outputs and renamed into place only when the run is
      // usable: a failure, a cancel or an empty input never leaves a half or empty file under the output's name.
      const tmpOut = tempBeside(out);
      const tmpInvalid = invalidOut !== undefined ? tempBeside(invalidOut) : undefined;
      const dropTemps = () => {
        for (const f of [tmpOut, tmpInvalid]) if (f !== undefined) rmSync(f, { force: true });
      };
      try {
        summary = await validateCsvInput({
          plan,
          input,
          output: tmpOut,
          ...(tmpInvalid ? { invalidOnlyOutput: tmpInvalid } : {}),
          directory,
          sandbox: !live,
          signal: controller.signal,
          onProgress: progress.onProgress,
        });
      } catch (e) {
        dropTemps();
        progress.end();
        process.stderr.write(`vconsole: ${controller.signal.aborted ? 'cancelled; no result file was kept' : (e as Error).message}\n`);
        return 2;
      } finally {
        process.off('SIGINT', onSigint);
      }
      progress.end();
      // Notes found while reading the whole file (an encoding seen only past the head).
      if (!json) for (const note of summary.notes.slice(notesBefore)) process.stderr.write(`note: ${note}\n`);
      if (summary.rows === 0) {
        // Unusable input (exit 2): no result file is written or announced.
        dropTemps();
        process.stderr.write('vconsole: the file holds no row to check (it is empty, or holds only a header); no result file was written.\n');
        return 2;
      }
      // A finished run is never thrown away: an output that cannot be replaced (open in a spreadsheet on Windows,
      // a folder without write permission) leaves its results under the temp name, which is said.
      const moves: [string, string][] = [[tmpOut, out], ...(tmpInvalid !== undefined && invalidOut !== undefined ? [[tmpInvalid, invalidOut] as [string, string]] : [])];
      const kept: string[] = [];
      let failure: Error | null = null;
      for (const [from, to] of moves) {
        try {
          renameSync(from, to);
        } catch (e) {
          failure ??= e as Error;
          kept.push(`${from} (meant for ${to})`);
        }
      }
      if (failure) {
        process.stderr.write(`vconsole: could not put the results in place (${failure.message}). They are kept as: ${kept.join(', ')}.\n`);
        return 2;
      }
      const result = { ...summary, input, output: out, invalidOutput: invalidOut ?? null, directory: label, environment: live ? 'live' : 'sandbox' };
      kit.print(values, result, summaryText(summary, out, invalidOut, label));
      return summary.invalid === 0 ? 0 : 1;
    };

    if (!live) return run(null, 'the sandbox test data');
    return kit.withCore(values, async (core) => {
      const org = (await kit.ownerPrincipal(core, 'live')).organizationId;
      const ref = await liveDirectoryRef(core.deps, org);
      if (!ref) return run(null, 'no routing directory (structure and checksums only)');
      return run(await createStoreDirectory(core.deps, org, ref), `the routing directory "${ref.name}" imported ${ref.importedAt ?? ''}`.trim());
    });
  },
};

export const routingCommands: ExtraCommand[] = [routingCommand, batchCommand];
