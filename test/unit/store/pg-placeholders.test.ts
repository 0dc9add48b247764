// The PostgreSQL engine rewrites better-sqlite3's placeholders (`?`, `?NNN`, `@name`) into `$n`, and only outside
// literals, quoted identifiers, comments and dollar-quoted bodies.
import { describe, expect, it } from 'vitest';
import { toPgStatement } from '../../../src-main/store/pg/placeholders';

describe('toPgStatement', () => {
  it('numbers positional placeholders in order', () => {
    expect(toPgStatement('SELECT * FROM t WHERE a = ? AND b IN (?, ?)', ['x', 1, 2n])).toEqual({ text: 'SELECT * FROM t WHERE a = $1 AND b IN ($2, $3)', values: ['x', 1, '2'] });
  });

  it('keeps ? and @ inside strings, quoted identifiers, comments and dollar quotes', () => {
    const sql = `SELECT '?', 'it''s @x ?', "we?ird", $$ ? @y $$, $tag$ ? $tag$ -- a ? comment
      /* a ? /* nested @z */ comment */ FROM t WHERE a = ?`;
    const st = toPgStatement(sql, [5]);
    expect(st.values).toEqual([5]);
    expect(st.text).toBe(sql.replace(/= \?$/, '= $1'));
  });

  it('numbered placeholders (?2) and named ones (@name, repeated) map to $n', () => {
    expect(toPgStatement('SELECT ?2, ?1, ?2', ['a', 'b']).text).toBe('SELECT $2, $1, $2');
    expect(toPgStatement('UPDATE t SET a = @a, b = @b WHERE id = @id OR a = @a', { a: 1, b: null, id: 'x' })).toEqual({ text: 'UPDATE t SET a = $1, b = $2 WHERE id = $3 OR a = $1', values: [1, null, 'x'] });
  });

  it('leaves operators alone: @@ (text search), @> and <@ (containment), :: casts, and native $1', () => {
    expect(toPgStatement('SELECT 1 WHERE doc @@ ?::tsquery AND a @> b AND b <@ a', ["'x':*"]).text).toBe('SELECT 1 WHERE doc @@ $1::tsquery AND a @> b AND b <@ a');
    expect(toPgStatement('SELECT $1::int + $2', [1, 2])).toEqual({ text: 'SELECT $1::int + $2', values: [1, 2] });
  });

  it('turns booleans into 1/0 as SQLite stores them, and refuses undefined', () => {
    expect(toPgStatement('SELECT ?, ?', [true, false]).values).toEqual([1, 0]);
    expect(() => toPgStatement('SELECT ?', [undefined as never])).toThrow(/undefined: pass null/);
    expect(() => toPgStatement('SELECT @a', { a: undefined as never })).toThrow(/undefined/);
  });

  it('refuses what better-sqlite3 refuses: missing or extra values, mixed styles', () => {
    expect(() => toPgStatement('SELECT ?, ?', [1])).toThrow(/no value/);
    expect(() => toPgStatement('SELECT ?', [1, 2])).toThrow(/2 values for 1 placeholders/);
    expect(() => toPgStatement('SELECT 1', [1])).toThrow(/without placeholders/);
    expect(() => toPgStatement('SELECT @a', { b: 1 })).toThrow(/@a has no value/);
    expect(() => toPgStatement('SELECT ?, $2', [1, 2])).toThrow(/mixed placeholder styles/);
    expect(() => toPgStatement('SELECT @a, ?', { a: 1 })).toThrow(/has no value/);
    expect(() => toPgStatement('SELECT @a', [1])).toThrow(/needs an object/);
  });
});
