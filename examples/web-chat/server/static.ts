import { readFile } from 'node:fs/promises';
import { extname, resolve, sep } from 'node:path';
import { badRequest } from './refused.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json; charset=utf-8',
};

/**
 * Serves the built page. Paths are resolved inside `dir` only, so `/../server/app.ts` is a 404; a path
 * that is not percent-encoded UTF-8 is a 400, and one no file can have (a NUL, a name too long) a 404.
 */
export async function serveStatic(dir: string, pathname: string): Promise<Response> {
  const root = resolve(dir);
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch (error) {
    throw badRequest(`The path ${pathname} is not valid percent-encoded UTF-8.`, { cause: error });
  }
  const file = resolve(root, pathname === '/' ? 'index.html' : decoded.replace(/^\/+/, ''));
  if (!file.startsWith(root + sep) || file.includes('\0')) return notFound();
  let body: Buffer;
  try {
    body = await readFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== undefined && MISSING.has(code)) return notFound();
    throw error;
  }
  return new Response(new Uint8Array(body), {
    headers: { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'content-length': String(body.length) },
  });
}

// What reading a path that names no file of the page can fail with.
const MISSING = new Set(['ENOENT', 'EISDIR', 'ENOTDIR', 'ENAMETOOLONG']);

function notFound(): Response {
  return new Response('Not found', { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' } });
}
