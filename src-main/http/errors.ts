// Maps every failure to the error body of interface §7.1: AppErrors by their catalogue code, Fastify's own
// errors (bad JSON, body too large, wrong media type, schema validation) to theirs, anything else to a 500
// that carries no stack trace.
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { AppError } from '../../src-shared/app-error';
import { errorBody, type FieldDetail, type HttpErrorCode } from '../../src-shared/errors';
import { ErrorBodySchema } from '../../src-shared/schemas/common';
import type { Db } from '../store/database';
import { storageAppError } from '../store/storage-faults';

export function sendError(reply: FastifyReply, code: HttpErrorCode, opts: { message?: string; details?: FieldDetail[]; retryAfterSeconds?: number } = {}) {
  const body = errorBody(code, opts);
  if (opts.retryAfterSeconds !== undefined) reply.header('Retry-After', String(opts.retryAfterSeconds));
  return reply.code(body.statusCode).type('application/json; charset=utf-8').send(body);
}

function zodDetails(err: FastifyError): FieldDetail[] {
  const out: FieldDetail[] = [];
  // fastify-type-provider-zod: one entry per zod issue, its code as `keyword`, the rest of the issue in `params`.
  const list = (err.validation ?? []) as {
    keyword?: string;
    instancePath?: string;
    message?: string;
    params?: { keys?: unknown; issue?: { path?: (string | number)[]; message?: string } };
  }[];
  for (const v of list) {
    const issuePath = v.params?.issue?.path;
    const field = issuePath && issuePath.length > 0 ? issuePath.join('.') : (v.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
    // A field the schema does not know is named itself (one detail each), not the object holding it.
    const keys = v.keyword === 'unrecognized_keys' && Array.isArray(v.params?.keys) ? v.params.keys.filter((k): k is string => typeof k === 'string') : [];
    if (keys.length > 0) {
      for (const key of keys) out.push({ field: field ? `${field}.${key}` : key, message: 'is not a field of this request' });
      continue;
    }
    out.push({ field: field || '(body)', message: v.params?.issue?.message ?? v.message ?? 'is invalid' });
  }
  return out;
}

export function installErrorHandling(app: FastifyInstance, db?: Db): void {
  app.setNotFoundHandler((_req, reply) => sendError(reply, 'NOT_FOUND', { message: 'No such route.' }));
  app.setErrorHandler((err: FastifyError, req, reply) => {
    if (err instanceof AppError) {
      return sendError(reply, err.code, {
        message: err.message,
        ...(err.details ? { details: err.details } : {}),
        ...(err.retryAfterSeconds !== undefined ? { retryAfterSeconds: err.retryAfterSeconds } : {}),
      });
    }
    if (hasZodFastifySchemaValidationErrors(err) || err.validation) {
      const details = zodDetails(err);
      const ctx = (err as { validationContext?: string }).validationContext;
      if (ctx && ctx !== 'body') for (const d of details) d.field = `${ctx}.${d.field}`;
      return sendError(reply, 'VALIDATION_ERROR', { details });
    }
    switch (err.code) {
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return sendError(reply, 'INVALID_JSON', err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ? { message: 'The request body is empty; send a JSON object.' } : {});
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return sendError(reply, 'PAYLOAD_TOO_LARGE');
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      case 'FST_ERR_CTP_INVALID_TYPE':
        return sendError(reply, 'UNSUPPORTED_MEDIA_TYPE');
      default:
        break;
    }
    if (err instanceof SyntaxError || (err as { type?: string }).type === 'entity.parse.failed') return sendError(reply, 'INVALID_JSON');
    const status = err.statusCode ?? 500;
    if (status === 400) return sendError(reply, 'INVALID_JSON', { message: 'The request is malformed.' });
    if (status === 413) return sendError(reply, 'PAYLOAD_TOO_LARGE');
    if (status === 415) return sendError(reply, 'UNSUPPORTED_MEDIA_TYPE');
    // A full or read-only disk: 503 with Retry-After, logged once a minute by the store's health, not per request.
    const storage = db ? storageAppError(db, err) : null;
    if (storage) return sendError(reply, storage.code, { message: storage.message, retryAfterSeconds: storage.retryAfterSeconds! });
    req.log.error({ err }, 'unhandled error');
    return sendError(reply, 'INTERNAL_ERROR');
  });
}

/**
 * Errors Fastify answers before routing (a malformed URL, a path parameter beyond maxParamLength) get the §7.1
 * body too, instead of Fastify's own `{ error, code: 'FST_…' }`.
 */
export function frameworkErrorHandler(err: FastifyError, _req: unknown, reply: FastifyReply) {
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return sendError(reply, 'VALIDATION_ERROR', { details: [{ field: 'params', message: 'a path parameter is too long' }] });
  }
  return sendError(reply, 'INVALID_JSON', { message: 'The request URL is malformed.' });
}

/**
 * Errors Node's HTTP parser raises before Fastify sees a request (headers beyond Node's limit, a malformed request
 * line): answered with the §7.1 body on the raw socket, then the connection is closed.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    socket.destroy(err);
    return;
  }
  const overflow = err.code === 'HPE_HEADER_OVERFLOW';
  const body = JSON.stringify(
    overflow ? errorBody('HEADERS_TOO_LARGE') : errorBody('INVALID_JSON', { message: 'The request is malformed.' }),
  );
  const status = overflow ? '431 Request Header Fields Too Large' : '400 Bad Request';
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

/**
 * The answers every documented route can give besides its own (a malformed request, a foreign Host, a body too
 * large or not JSON, headers too large, an unexpected failure, a store that cannot be written or read: 503
 * STORAGE_UNAVAILABLE) are added to its OpenAPI responses, so the document lists every status a client can meet and
 * a schema for each; a route that takes a credential also gets 429, its per-credential budget, and one a Bearer token
 * may call 422, an `X-Environment` header other than sandbox or live (auth.ts).
 */
export function documentDoorErrors(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const schema = route.schema as { hide?: boolean; response?: Record<string, unknown>; security?: readonly Record<string, unknown>[] } | undefined;
    if (!schema || schema.hide || !schema.response) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const hasBody = methods.some((m) => m === 'POST' || m === 'PUT' || m === 'PATCH');
    const credentialed = (schema.security ?? []).some((s) => Object.keys(s).length > 0);
    const bearer = (schema.security ?? []).some((s) => 'bearer' in s);
    const codes = [400, 403, 431, 500, 503, ...(hasBody ? [413, 415] : []), ...(credentialed ? [429] : []), ...(bearer ? [422] : [])];
    for (const c of codes) if (!(c in schema.response) && !(String(c) in schema.response)) schema.response[c] = ErrorBodySchema;
  });
}
