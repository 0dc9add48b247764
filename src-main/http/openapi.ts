// The OpenAPI document as client generators need it (issue 18): generated from the route schemas by
// @fastify/swagger + fastify-type-provider-zod, then finished here in one place — a description on every response
// (errors described from the catalogue), request-body examples taken from the sandbox catalogue, no unused
// components, and request schemas named without the generator's `Input` suffix when only one variant is used.
// Checked by test/conformance/openapi.test.ts with redocly's recommended ruleset (redocly.yaml).
import { STATUS_CODES } from 'node:http';
import type { FastifySchema } from 'fastify';
import type { SwaggerTransform, SwaggerTransformObject } from '@fastify/swagger';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { HTTP_ERRORS, type HttpErrorCode } from '../../src-shared/errors';
import type { SandboxFixture } from '../../src-shared/schemas/sandbox';

declare module 'fastify' {
  interface FastifySchema {
    /** What each success status of this route means, for the OpenAPI response descriptions. */
    responseDescriptions?: Partial<Record<number, string>>;
  }
}

/** What each error status means; the codes it can carry are appended from the catalogue (src-shared/errors.ts). */
const ERROR_MEANING: Record<number, string> = {
  400: 'The body is not valid JSON, or the request is malformed.',
  401: 'No valid credential was sent.',
  402: 'Refused by a billing gate before anything was charged (decisions §9).',
  403: 'The credential may not do this (role, environment, service not enabled, or a foreign Host header).',
  404: 'No such resource in this organization and environment.',
  409: 'The Idempotency-Key is in use by a request still running, or was used with another body.',
  413: 'The request body is too large.',
  415: 'The request body is not JSON.',
  422: 'The request failed validation; `details` lists each field to correct.',
  429: 'Too many requests; wait for the seconds given by `Retry-After`.',
  431: 'The request line or headers are too large.',
  500: 'An unexpected error; it has been logged. Retry later.',
  503: 'The service cannot answer right now (for example its data folder cannot be written); retry after `Retry-After`.',
};

export function errorResponseDescription(status: number): string {
  const codes = (Object.keys(HTTP_ERRORS) as HttpErrorCode[]).filter((c) => HTTP_ERRORS[c].status === status);
  // A status without a sentence here still gets its HTTP reason phrase and its codes, never "Default Response".
  const meaning = ERROR_MEANING[status] ?? `${STATUS_CODES[status] ?? `HTTP ${status}`}.`;
  return codes.length > 0 ? `${meaning} Codes: ${codes.map((c) => `\`${c}\``).join(', ')}.` : meaning;
}

/** The description of a success response whose route gave none (the conformance test refuses it). */
export function fallbackSuccessDescription(status: number, summary: string): string {
  return `${STATUS_CODES[status] ?? `HTTP ${status}`} (no description given): ${summary}`;
}

/** The sandbox fixture kinds whose requests exemplify each operation's body. */
const FIXTURE_KIND_OF: Record<string, string> = {
  verifyAccount: 'account',
  verifyPhone: 'phone',
  verifyIdentity: 'identity',
  verifyAddress: 'address',
  verifyFace: 'face',
  checkBic: 'bic',
  checkRoutingNumber: 'routing-codes',
  listCorrespondents: 'correspondents',
  checkBatch: 'batch',
};

/** Bodies of operations the sandbox catalogue has no fixture for (sessions, keys, webhooks). */
const OTHER_EXAMPLES: Record<string, Record<string, { summary: string; value: unknown }>> = {
  login: { owner: { summary: 'Sign in with the email and password of a console user', value: { email: 'owner@example.com', password: 'correct horse battery staple' } } },
  refreshSession: { rotate: { summary: 'Trade the refresh token of a pair for a new pair', value: { refreshToken: 'rt_3f6c0b9e4d2a4f0c8e1b7a5d9c2e6f10' } } },
  createApiKey: { sandbox: { summary: 'A sandbox key for a CI pipeline', value: { name: 'CI pipeline', environment: 'sandbox' } } },
  recoverWebhookEvents: {
    sinceFailure: { summary: 'Redeliver what the endpoint missed since it failed', value: {} },
    period: { summary: 'Redeliver one period', value: { since: '2026-11-24T09:00:00Z', until: '2026-11-24T12:00:00Z' } },
  },
  createWebhook: {
    all: {
      summary: 'Receive every verification event',
      value: { url: 'https://hooks.example.com/verification', events: ['verification.completed', 'verification.failed'], description: 'Production receiver' },
    },
  },
  updateWebhook: {
    pause: { summary: 'Pause deliveries', value: { status: 'inactive' } },
    rotate: { summary: 'Rotate the signing secret (the new one is returned once)', value: { rotateSecret: true } },
  },
};

/** A token works on the environment this header names (decisions §6): every operation a Bearer token may call. */
const ENVIRONMENT_HEADER = {
  name: 'X-Environment',
  in: 'header',
  required: false,
  description: 'With a Bearer token: the environment it works on (default `sandbox`). Ignored with an API key, which belongs to one.',
  schema: { type: 'string', enum: ['sandbox', 'live'], default: 'sandbox' },
};
const RETRY_AFTER = { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } };
const IDEMPOTENT_REPLAYED = {
  description: 'Present (`true`) when this answer is the stored answer of an earlier request with the same Idempotency-Key.',
  schema: { type: 'string', enum: ['true'] },
};

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'];

/** Every `$ref` target under `node`. */
function refsIn(node: unknown, out: Set<string>): void {
  if (Array.isArray(node)) for (const v of node) refsIn(v, out);
  else if (isObj(node)) {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.add(v);
      else refsIn(v, out);
    }
  }
}

function renameRefs(node: unknown, from: string, to: string): void {
  if (Array.isArray(node)) for (const v of node) renameRefs(v, from, to);
  else if (isObj(node)) {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && v === from) node[k] = to;
      else renameRefs(v, from, to);
    }
  }
}

const SCHEMAS = '#/components/schemas/';

/**
 * Drops component schemas nothing reaches from the paths, names used `XInput` schemas `X` when `X` is free, and
 * sorts them by name.
 */
function pruneComponents(doc: Json): void {
  const components = doc['components'] as Json | undefined;
  const schemas = components?.['schemas'] as Record<string, unknown> | undefined;
  if (!components || !schemas) return;
  const reached = new Set<string>();
  const queue = new Set<string>();
  refsIn(doc['paths'], queue);
  while (queue.size > 0) {
    const [ref] = queue;
    queue.delete(ref!);
    if (!ref!.startsWith(SCHEMAS) || reached.has(ref!)) continue;
    reached.add(ref!);
    const more = new Set<string>();
    refsIn(schemas[ref!.slice(SCHEMAS.length)], more);
    for (const m of more) if (!reached.has(m)) queue.add(m);
  }
  for (const name of Object.keys(schemas)) if (!reached.has(SCHEMAS + name)) delete schemas[name];
  for (const name of Object.keys(schemas)) {
    const plain = name.replace(/Input$/, '');
    if (plain === name || plain in schemas) continue;
    schemas[plain] = schemas[name];
    delete schemas[name];
    renameRefs(doc, SCHEMAS + name, SCHEMAS + plain);
  }
  // Sorted, so the document does not depend on the order modules registered their schemas in.
  components['schemas'] = Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * The headers the service reads or answers beyond a route's own schema: `X-Environment` on every operation a Bearer
 * token may call, `Retry-After` on every 429 and 503, `Idempotent-Replayed` on the success answers of the operations
 * that take an `Idempotency-Key`.
 */
function documentHeaders(op: Json): void {
  const parameters = (op['parameters'] ?? []) as Json[];
  const security = (op['security'] ?? []) as Json[];
  if (security.some((s) => 'bearer' in s) && !parameters.some((p) => String(p['name']).toLowerCase() === 'x-environment')) {
    op['parameters'] = [...parameters, { ...ENVIRONMENT_HEADER }];
  }
  const idempotent = parameters.some((p) => p['in'] === 'header' && String(p['name']).toLowerCase() === 'idempotency-key');
  for (const [status, response] of Object.entries((op['responses'] ?? {}) as Record<string, Json>)) {
    const code = Number(status);
    const headers = { ...((response['headers'] ?? {}) as Json) };
    if (code === 429 || code === 503) headers['Retry-After'] = RETRY_AFTER;
    if (idempotent && (code === 200 || code === 202)) headers['Idempotent-Replayed'] = IDEMPOTENT_REPLAYED;
    if (Object.keys(headers).length > 0) response['headers'] = headers;
  }
}

export interface OpenApiFinish {
  /** The public sandbox catalogue, read when the document is built. */
  fixtures: () => SandboxFixture[];
}

/**
 * The `transform` and `transformObject` options of @fastify/swagger: the zod transforms of
 * fastify-type-provider-zod, plus the finishing steps above.
 */
export function openApiTransforms(o: OpenApiFinish): { transform: SwaggerTransform; transformObject: SwaggerTransformObject } {
  const successDescriptions = new Map<string, Partial<Record<number, string>>>();
  const transform: SwaggerTransform = (input) => {
    const schema = input.schema as FastifySchema | undefined;
    if (schema?.operationId && schema.responseDescriptions) successDescriptions.set(schema.operationId, schema.responseDescriptions);
    const out = jsonSchemaTransform(input) as { schema: Json; url: string };
    if (out.schema && 'responseDescriptions' in out.schema) {
      const { responseDescriptions: _drop, ...rest } = out.schema;
      out.schema = rest;
    }
    return out as ReturnType<SwaggerTransform>;
  };
  const transformObject: SwaggerTransformObject = (input) => {
    const doc = jsonSchemaTransformObject(input) as Json;
    const fixtures = o.fixtures();
    for (const [path, item] of Object.entries((doc['paths'] ?? {}) as Record<string, Json>)) {
      for (const method of METHODS) {
        const op = item[method] as Json | undefined;
        if (!op) continue;
        const id = String(op['operationId'] ?? `${method} ${path}`);
        const ok = successDescriptions.get(id) ?? {};
        documentHeaders(op);
        for (const [status, response] of Object.entries((op['responses'] ?? {}) as Record<string, Json>)) {
          if (response['description'] !== 'Default Response' && response['description']) continue;
          const code = Number(status);
          // A route without its responseDescriptions still serves a document (test/conformance/openapi.test.ts
          // fails on the fallback, so it is caught before a release).
          response['description'] = code < 400 ? (ok[code] ?? fallbackSuccessDescription(code, String(op['summary'] ?? id))) : errorResponseDescription(code);
        }
        const media = ((op['requestBody'] as Json | undefined)?.['content'] as Record<string, Json> | undefined)?.['application/json'];
        if (!media) continue;
        const kind = FIXTURE_KIND_OF[id];
        const examples: Record<string, { summary: string; value: unknown }> = {};
        if (kind) {
          const mine = fixtures.filter((f) => f.kind === kind);
          // The first fixture of each expected status (success, failed, error…): one example per outcome.
          const seen = new Set<string>();
          for (const f of mine) {
            const key = `${f.expected.status}${f.expected.errorCode ? `-${f.expected.errorCode}` : ''}`;
            if (seen.has(f.expected.status) || Object.keys(examples).length >= 4) continue;
            seen.add(f.expected.status);
            examples[key] = { summary: `${f.country ? `${f.country}: ` : ''}${f.description}`, value: f.request };
          }
        } else Object.assign(examples, OTHER_EXAMPLES[id] ?? {});
        // None: the conformance test names the operation.
        if (Object.keys(examples).length > 0) media['examples'] = examples;
      }
    }
    pruneComponents(doc);
    return doc as ReturnType<SwaggerTransformObject>;
  };
  return { transform, transformObject };
}
