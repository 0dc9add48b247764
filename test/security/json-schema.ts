// The subset of JSON Schema that the service's OpenAPI document uses: a validator (responses must match their
// documented schema) and fast-check generators of valid and invalid values (requests derived from the schema).
import fc from 'fast-check';

export type JsonSchema = { [k: string]: unknown };

/** Keywords that only annotate; anything else unknown is an error, so a new keyword cannot silently pass. */
const ANNOTATIONS = new Set(['description', 'example', 'examples', 'default', 'title', 'deprecated', 'readOnly', 'writeOnly', 'id']);
const KNOWN = new Set([
  '$ref', 'type', 'enum', 'const', 'properties', 'required', 'additionalProperties', 'propertyNames', 'items', 'minItems',
  'maxItems', 'anyOf', 'oneOf', 'allOf', 'minLength', 'maxLength', 'pattern', 'format', 'minimum', 'maximum', 'nullable',
  ...ANNOTATIONS,
]);

const DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const DATE_TIME = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;
const EMAIL = /^[^\s@]+@[^\s@]+$/;

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function typeMatches(t: string, v: unknown): boolean {
  const actual = typeOf(v);
  return t === actual || (t === 'number' && actual === 'integer');
}

const regexCache = new Map<string, RegExp>();
function regex(p: string): RegExp {
  let r = regexCache.get(p);
  if (!r) {
    r = new RegExp(p, 'u');
    regexCache.set(p, r);
  }
  return r;
}

export class SchemaSet {
  constructor(private readonly doc: { components?: { schemas?: Record<string, JsonSchema> } }) {}

  resolve(s: JsonSchema): JsonSchema {
    let cur = s;
    for (let i = 0; i < 20 && typeof cur['$ref'] === 'string'; i++) {
      const ref = cur['$ref'] as string;
      const m = /^#\/components\/schemas\/(.+)$/.exec(ref);
      const target = m ? this.doc.components?.schemas?.[m[1]!] : undefined;
      if (!target) throw new Error(`unresolvable $ref ${ref}`);
      cur = target;
    }
    return cur;
  }

  /** Every reason why `v` does not match `schema` (empty when it matches). */
  errors(schema: JsonSchema, v: unknown, path = '$'): string[] {
    const s = this.resolve(schema);
    const out: string[] = [];
    for (const k of Object.keys(s)) if (!KNOWN.has(k)) throw new Error(`unsupported JSON-schema keyword ${k} at ${path}`);
    if (s['type'] !== undefined) {
      const types = Array.isArray(s['type']) ? (s['type'] as string[]) : [s['type'] as string];
      if (s['nullable'] === true) types.push('null');
      if (!types.some((t) => typeMatches(t, v))) return [`${path}: expected ${types.join('|')}, got ${typeOf(v)}`];
    }
    if (s['enum'] !== undefined && !(s['enum'] as unknown[]).some((e) => e === v)) out.push(`${path}: not in enum`);
    if ('const' in s && s['const'] !== v) out.push(`${path}: not the const ${JSON.stringify(s['const'])}`);
    if (typeof v === 'string') {
      const len = [...v].length;
      if (typeof s['minLength'] === 'number' && len < s['minLength']) out.push(`${path}: shorter than ${s['minLength']}`);
      if (typeof s['maxLength'] === 'number' && len > s['maxLength']) out.push(`${path}: longer than ${s['maxLength']}`);
      if (typeof s['pattern'] === 'string' && !regex(s['pattern']).test(v)) out.push(`${path}: does not match ${s['pattern']}`);
      const f = s['format'];
      if (f === 'date' && !DATE.test(v)) out.push(`${path}: not a date`);
      if (f === 'date-time' && (!DATE_TIME.test(v) || Number.isNaN(Date.parse(v)))) out.push(`${path}: not a date-time`);
      if (f === 'email' && !EMAIL.test(v)) out.push(`${path}: not an email`);
      if ((f === 'uri' || f === 'url') && !URL.canParse(v)) out.push(`${path}: not a URI`);
    }
    if (typeof v === 'number') {
      if (typeof s['minimum'] === 'number' && v < s['minimum']) out.push(`${path}: below ${s['minimum']}`);
      if (typeof s['maximum'] === 'number' && v > s['maximum']) out.push(`${path}: above ${s['maximum']}`);
    }
    if (Array.isArray(v)) {
      if (typeof s['minItems'] === 'number' && v.length < s['minItems']) out.push(`${path}: fewer than ${s['minItems']} items`);
      if (typeof s['maxItems'] === 'number' && v.length > s['maxItems']) out.push(`${path}: more than ${s['maxItems']} items`);
      if (s['items'] && typeof s['items'] === 'object') v.forEach((x, i) => out.push(...this.errors(s['items'] as JsonSchema, x, `${path}[${i}]`)));
    }
    if (typeOf(v) === 'object') {
      const o = v as Record<string, unknown>;
      const props = (s['properties'] ?? {}) as Record<string, JsonSchema>;
      for (const r of (s['required'] ?? []) as string[]) if (!Object.hasOwn(o, r)) out.push(`${path}: missing ${r}`);
      for (const [k, x] of Object.entries(o)) {
        if (Object.hasOwn(props, k)) out.push(...this.errors(props[k]!, x, `${path}.${k}`));
        else if (s['additionalProperties'] === false) out.push(`${path}: unexpected property ${k}`);
        else if (s['additionalProperties'] && typeof s['additionalProperties'] === 'object')
          out.push(...this.errors(s['additionalProperties'] as JsonSchema, x, `${path}.${k}`));
        if (s['propertyNames']) out.push(...this.errors(s['propertyNames'] as JsonSchema, k, `${path}{${k}}`));
      }
    }
    if (Array.isArray(s['anyOf'])) {
      const ok = (s['anyOf'] as JsonSchema[]).some((b) => this.errors(b, v, path).length === 0);
      if (!ok) out.push(`${path}: matches no anyOf branch`);
    }
    if (Array.isArray(s['oneOf'])) {
      const n = (s['oneOf'] as JsonSchema[]).filter((b) => this.errors(b, v, path).length === 0).length;
      if (n !== 1) out.push(`${path}: matches ${n} oneOf branches`);
    }
    if (Array.isArray(s['allOf'])) for (const b of s['allOf'] as JsonSchema[]) out.push(...this.errors(b, v, path));
    return out;
  }

  valid(schema: JsonSchema, v: unknown): boolean {
    return this.errors(schema, v).length === 0;
  }

  /**
   * Values that match `schema` (patterns through fc.stringMatching). `hints` gives meaningful constants per
   * property name, mixed with the generic values so that requests also get past the checks behind the schema.
   */
  arbitrary(schema: JsonSchema, gen: Generators, name = ''): fc.Arbitrary<unknown> {
    const s = this.resolve(schema);
    const hint = gen.hints[name];
    const base = this.baseArbitrary(s, gen, name);
    if (!hint || hint.length === 0) return base;
    const ok = hint.filter((h) => this.valid(s, h));
    return ok.length > 0 ? fc.oneof({ arbitrary: fc.constantFrom(...ok), weight: 3 }, { arbitrary: base, weight: 1 }) : base;
  }

  private baseArbitrary(s: JsonSchema, gen: Generators, name: string): fc.Arbitrary<unknown> {
    if (s['enum']) return fc.constantFrom(...(s['enum'] as unknown[]));
    if ('const' in s) return fc.constant(s['const']);
    if (Array.isArray(s['anyOf'])) return fc.oneof(...(s['anyOf'] as JsonSchema[]).map((b) => this.arbitrary(b, gen, name)));
    if (Array.isArray(s['oneOf'])) {
      const branches = s['oneOf'] as JsonSchema[];
      return fc.oneof(...branches.map((b) => this.arbitrary(b, gen, name))).filter((v) => this.valid(s, v));
    }
    const types = Array.isArray(s['type']) ? (s['type'] as string[]) : s['type'] ? [s['type'] as string] : [];
    if (s['nullable'] === true) types.push('null');
    if (types.length > 1) return fc.oneof(...types.map((t) => this.baseArbitrary({ ...s, type: t, nullable: false }, gen, name)));
    const t = types[0];
    switch (t) {
      case 'null':
        return fc.constant(null);
      case 'boolean':
        return fc.boolean();
      case 'integer': {
        const min = typeof s['minimum'] === 'number' ? s['minimum'] : -1_000_000;
        const max = typeof s['maximum'] === 'number' ? s['maximum'] : 1_000_000;
        return fc.integer({ min: Math.max(min, Number.MIN_SAFE_INTEGER), max: Math.min(max, Number.MAX_SAFE_INTEGER) });
      }
      case 'number': {
        const min = typeof s['minimum'] === 'number' ? s['minimum'] : -1e9;
        const max = typeof s['maximum'] === 'number' ? s['maximum'] : 1e9;
        return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
      }
      case 'string':
        return this.stringArbitrary(s);
      case 'array': {
        const minLength = typeof s['minItems'] === 'number' ? s['minItems'] : 0;
        const maxLength = Math.max(minLength, Math.min(typeof s['maxItems'] === 'number' ? s['maxItems'] : 5, 5));
        return fc.array(this.arbitrary((s['items'] ?? {}) as JsonSchema, gen, name), { minLength, maxLength });
      }
      case 'object': {
        const props = (s['properties'] ?? {}) as Record<string, JsonSchema>;
        const required = (s['required'] ?? []) as string[];
        const model: Record<string, fc.Arbitrary<unknown>> = {};
        for (const [k, ps] of Object.entries(props)) model[k] = this.arbitrary(ps, gen, k);
        return fc.record(model, { requiredKeys: required.filter((r) => r in props) });
      }
      case undefined:
        // `{}`: any JSON value.
        return fc.jsonValue({ maxDepth: 2 });
      default:
        throw new Error(`unsupported type ${t}`);
    }
  }

  private stringArbitrary(s: JsonSchema): fc.Arbitrary<string> {
    const minLength = typeof s['minLength'] === 'number' ? s['minLength'] : 0;
    const maxLength = typeof s['maxLength'] === 'number' ? s['maxLength'] : 64;
    const fit = (a: fc.Arbitrary<string>) => a.filter((x) => this.valid(s, x));
    if (s['format'] === 'date') return fit(fc.date({ min: new Date('1900-01-01'), max: new Date('2100-12-31'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)));
    if (s['format'] === 'date-time') return fit(fc.date({ min: new Date('1970-01-01'), max: new Date('2100-12-31'), noInvalidDate: true }).map((d) => d.toISOString()));
    if (typeof s['pattern'] === 'string') return fit(fc.stringMatching(regex(s['pattern'])));
    if (s['format'] === 'email') return fit(fc.emailAddress());
    const cap = Math.max(minLength, Math.min(maxLength, 40));
    return fc.oneof(
      { arbitrary: fc.string({ unit: 'grapheme', minLength, maxLength: cap }), weight: 4 },
      // The exact bounds, which off-by-one bugs miss.
      { arbitrary: fc.constantFrom('x'.repeat(Math.max(minLength, 1)), 'y'.repeat(maxLength)), weight: 1 },
    ).filter((x) => this.valid(s, x));
  }

  /**
   * Values that violate `schema` in one way each: a wrong JSON type, a missing required property, an unknown
   * property (where the schema forbids them), an out-of-range string, number or array, a value outside an enum,
   * a pattern violation. Each candidate is checked to really be invalid, so the expectation (4xx) is sound.
   */
  invalidArbitrary(schema: JsonSchema, valid: fc.Arbitrary<unknown>): fc.Arbitrary<{ value: unknown; how: string }> {
    const s = this.resolve(schema);
    return valid
      .chain((v) => fc.constantFrom(...this.mutations(s, v)))
      .filter((m) => !this.valid(s, m.value));
  }

  private mutations(s: JsonSchema, v: unknown, path: string[] = []): { value: unknown; how: string }[] {
    const out: { value: unknown; how: string }[] = [];
    const at = path.join('.') || '(root)';
    const set = (value: unknown, how: string) => out.push({ value, how: `${at}: ${how}` });
    for (const wrong of [null, 42, 'text', true, [], {}]) if (typeOf(wrong) !== typeOf(v)) set(wrong, `type ${typeOf(wrong)}`);
    if (typeof v === 'string') {
      set(v + 'x'.repeat(typeof s['maxLength'] === 'number' ? s['maxLength'] + 1 : 5_000), 'too long');
      if (typeof s['minLength'] === 'number' && s['minLength'] > 0) set('', 'empty');
      if (s['enum']) set(`${v}-not-in-enum`, 'outside the enum');
      if (s['pattern'] || s['format']) set(`!${v} \u0000`, 'breaks the pattern');
    }
    if (typeof v === 'number') {
      if (typeof s['maximum'] === 'number') set(s['maximum'] + 1, 'above maximum');
      if (typeof s['minimum'] === 'number') set(s['minimum'] - 1, 'below minimum');
      if (s['type'] === 'integer') set(v + 0.5, 'not an integer');
    }
    if (Array.isArray(v) && typeof s['maxItems'] === 'number') set([...Array(s['maxItems'] + 1)].map(() => v[0] ?? 'x'), 'too many items');
    if (typeOf(v) === 'object') {
      const o = v as Record<string, unknown>;
      for (const r of (s['required'] ?? []) as string[]) {
        const { [r]: _drop, ...rest } = o;
        set(rest, `missing ${r}`);
      }
      if (s['additionalProperties'] === false) set({ ...o, unknownField: 'x' }, 'unknown property');
      const props = (s['properties'] ?? {}) as Record<string, JsonSchema>;
      for (const [k, x] of Object.entries(o)) {
        const ps = props[k];
        if (!ps) continue;
        for (const m of this.mutations(this.resolve(ps), x, [...path, k])) out.push({ value: { ...o, [k]: m.value }, how: m.how });
      }
    }
    return out;
  }
}

export interface Generators {
  /** Meaningful constants per property name. */
  hints: Record<string, unknown[]>;
}
