import { compileJsonSchema, type JsonSchema, type JsonSchemaCheck } from '../../schema/index.js';
import { BodyTooLargeError, ServerRequestError, UnsupportedMediaTypeError } from '../errors.js';
import { nestedDeeperThan } from '../json-depth.js';

/**
 * How deep any request body may nest. Far beyond what a route takes (a UI message with a tool's input
 * is a dozen levels), and far below what would overflow the stack of what reads it after.
 */
export const MAX_BODY_DEPTH = 100;

const checks = new WeakMap<object, JsonSchemaCheck>();

/**
 * The request's JSON body, checked against `schema` before anything looks at it: not JSON typed (415),
 * over `limit` bytes (413, refused from `content-length` before reading, and cut off while reading
 * when the header lies or is absent), not UTF-8 or not JSON (400), nested deeper than `MAX_BODY_DEPTH`
 * (400), or not what the route takes (400,
 * every problem listed with its JSON pointer).
 */
export async function readJsonBody<T>(request: Request, limit: number, schema: JsonSchema): Promise<T> {
  const type = request.headers.get('content-type');
  if (type === null || !/^application\/json\s*(;|$)/i.test(type)) throw new UnsupportedMediaTypeError(type);
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > limit) throw new BodyTooLargeError(limit);
  const bytes = await readLimited(request, limit);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ServerRequestError('The body is not valid UTF-8.');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ServerRequestError(`The body is not JSON: ${(error as Error).message}`);
  }
  if (nestedDeeperThan(value, MAX_BODY_DEPTH))
    throw new ServerRequestError(`The body nests more than ${MAX_BODY_DEPTH} levels deep; no route takes that.`);
  const issues = checkOf(schema)(value);
  if (issues.length > 0)
    throw new ServerRequestError(
      `The body is not what this route takes: ${issues.map((i) => `${i.path || '/'} ${i.message}`).join('; ')}`,
      issues,
    );
  return value as T;
}

/** A body that may be absent (`{}` then), for routes whose body is all optional. */
export async function readOptionalJsonBody<T>(request: Request, limit: number, schema: JsonSchema): Promise<T> {
  const declared = request.headers.get('content-length');
  if (request.body === null || declared === '0') return readEmpty<T>(schema);
  return readJsonBody<T>(request, limit, schema);
}

function readEmpty<T>(schema: JsonSchema): T {
  const issues = checkOf(schema)({});
  if (issues.length > 0) throw new ServerRequestError('This route needs a JSON body.', issues);
  return {} as T;
}

async function readLimited(request: Request, limit: number): Promise<Uint8Array> {
  if (request.body === null) return new Uint8Array();
  const reader = request.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw new BodyTooLargeError(limit);
    }
    parts.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

function checkOf(schema: JsonSchema): JsonSchemaCheck {
  let check = checks.get(schema);
  if (check === undefined) checks.set(schema, (check = compileJsonSchema(schema, 'a request body schema')));
  return check;
}
