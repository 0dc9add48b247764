// Placeholders as the core writes them for better-sqlite3 — `?` positional, `?NNN` numbered, `@name` named — turned
// into PostgreSQL's `$1…`, outside string literals, quoted identifiers, comments and dollar-quoted bodies. SQL that
// already uses `$1…` passes through unchanged. `@` is a placeholder only when a name starts right after it and it
// is not part of an operator (`@@`, `@>`, `<@`), so text search and containment operators keep working.
import { isNamedParams, normaliseParam, SqlPortError, type SqlParams, type SqlValue } from '../sql-port';

export interface PgStatement {
  text: string;
  values: unknown[];
}

const NAME_START = /[A-Za-z_]/;
const NAME_CHAR = /[A-Za-z0-9_]/;

/** `'…'`, `"…"`, `-- …`, `/* … *\/` (nested, as PostgreSQL reads them) and `$tag$…$tag$` spans: where no placeholder is. */
function skipQuoted(sql: string, i: number): number {
  const c = sql[i];
  const next = sql[i + 1];
  if (c === "'" || c === '"') {
    let j = i + 1;
    for (;;) {
      if (j >= sql.length) return j;
      if (sql[j] === c) {
        if (sql[j + 1] === c) j += 2;
        else return j + 1;
      } else j += 1;
    }
  }
  if (c === '-' && next === '-') {
    const end = sql.indexOf('\n', i);
    return end === -1 ? sql.length : end + 1;
  }
  if (c === '/' && next === '*') {
    let depth = 1;
    let j = i + 2;
    while (j < sql.length && depth > 0) {
      if (sql[j] === '/' && sql[j + 1] === '*') {
        depth += 1;
        j += 2;
      } else if (sql[j] === '*' && sql[j + 1] === '/') {
        depth -= 1;
        j += 2;
      } else j += 1;
    }
    return j;
  }
  if (c === '$') {
    const m = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i));
    // `$1` is a parameter, not a dollar quote; a tag must not follow an identifier character (`a$b$`).
    if (m && !(i > 0 && NAME_CHAR.test(sql[i - 1]!))) {
      const tag = m[0];
      const end = sql.indexOf(tag, i + tag.length);
      return end === -1 ? sql.length : end + tag.length;
    }
  }
  return i;
}

export function toPgStatement(sql: string, params?: SqlParams): PgStatement {
  const named = isNamedParams(params);
  const positional: readonly SqlValue[] = named || params === undefined ? [] : (params as readonly SqlValue[]);
  const names = new Map<string, number>();
  const values: unknown[] = [];
  let out = '';
  let nextPositional = 0;
  let usedPositional = false;
  let usedNamed = false;
  let usedDollar = false;
  let i = 0;
  while (i < sql.length) {
    const skipped = skipQuoted(sql, i);
    if (skipped !== i) {
      out += sql.slice(i, skipped);
      i = skipped;
      continue;
    }
    const c = sql[i]!;
    if (c === '?') {
      usedPositional = true;
      const m = /^\?(\d+)/.exec(sql.slice(i));
      let index: number;
      if (m) {
        index = Number(m[1]) - 1;
        i += m[0].length;
      } else {
        index = nextPositional;
        nextPositional += 1;
        i += 1;
      }
      if (index < 0 || index >= positional.length) throw new SqlPortError(`placeholder ${index + 1} has no value (${positional.length} given): ${sql}`);
      out += `$${index + 1}`;
      continue;
    }
    if (c === '@' && NAME_START.test(sql[i + 1] ?? '') && sql[i - 1] !== '@' && sql[i - 1] !== '<') {
      let j = i + 1;
      while (j < sql.length && NAME_CHAR.test(sql[j]!)) j += 1;
      const name = sql.slice(i + 1, j);
      usedNamed = true;
      if (!named) throw new SqlPortError(`named placeholder @${name} needs an object of parameters: ${sql}`);
      let n = names.get(name);
      if (n === undefined) {
        if (!Object.prototype.hasOwnProperty.call(params, name)) throw new SqlPortError(`named placeholder @${name} has no value: ${sql}`);
        values.push(pgValue(normaliseParam((params as Record<string, SqlValue>)[name], `@${name}`)));
        n = values.length;
        names.set(name, n);
      }
      out += `$${n}`;
      i = j;
      continue;
    }
    if (c === '$' && /\d/.test(sql[i + 1] ?? '')) usedDollar = true;
    out += c;
    i += 1;
  }
  if ((usedPositional ? 1 : 0) + (usedNamed ? 1 : 0) + (usedDollar ? 1 : 0) > 1) throw new SqlPortError(`mixed placeholder styles in one statement: ${sql}`);
  if (usedNamed) return { text: out, values };
  if (named && Object.keys(params).length > 0) throw new SqlPortError(`named parameters given to a statement without named placeholders: ${sql}`);
  if (usedDollar) return { text: out, values: positional.map((v, k) => pgValue(normaliseParam(v, `${k + 1}`))) };
  // As better-sqlite3 does: every value given must have its placeholder.
  if (nextPositional > 0 && nextPositional !== positional.length) throw new SqlPortError(`${positional.length} values for ${nextPositional} placeholders: ${sql}`);
  if (!usedPositional && positional.length > 0) throw new SqlPortError(`${positional.length} values for a statement without placeholders: ${sql}`);
  return { text: out, values: positional.map((v, k) => normaliseParam(v, `${k + 1}`)).map(pgValue) };
}

/** bigint travels as text (node-postgres cannot serialise it); PostgreSQL casts it to the column's type. */
function pgValue(v: unknown): unknown {
  return typeof v === 'bigint' ? v.toString() : v;
}
