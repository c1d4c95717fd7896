import { badRequest, RefusedRequestError } from './refused.js';

/** The longest name a conversation may have (the page's rename box stops there too). */
export const MAX_TITLE_CHARS = 200;
/** A thread's create or metadata body is a title and an id: anything this long is not the page's. */
const MAX_BODY_BYTES = 16 * 1024;

/**
 * The page names a conversation through the agent server's thread metadata (`{ metadata: { title } }`
 * on `POST /threads` and `PATCH /threads/{id}`), which takes any JSON. The list shows the title as
 * text, so the example holds it to what the page can show: text, not blank, at most 200 characters.
 * Returns the body's bytes, read, for the server to parse again; a body that is not JSON is the
 * server's to refuse.
 */
export async function checkedTitleBody(request: Request): Promise<Uint8Array> {
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  const bytes = await readCapped(request);
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return bytes;
  }
  const metadata = (body as { metadata?: unknown } | null)?.metadata;
  if (typeof metadata !== 'object' || metadata === null || !('title' in metadata)) return bytes;
  const title = (metadata as { title: unknown }).title;
  if (title === null) return bytes; // removes the name: the list shows the conversation as new again
  if (typeof title !== 'string' || title.trim() === '' || title.length > MAX_TITLE_CHARS) {
    throw badRequest(`A conversation's title is text of 1 to ${MAX_TITLE_CHARS} characters, not ${JSON.stringify(title).slice(0, 40)}.`);
  }
  return bytes;
}

/**
 * The body, read chunk by chunk and given up on as soon as it passes the cap: a chunked body has no
 * length to refuse up front, and reading a 300 MB one whole before counting it would hold all of it.
 */
async function readCapped(request: Request): Promise<Uint8Array> {
  if (request.body === null) return new Uint8Array();
  const reader = request.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    parts.push(value);
  }
  return Buffer.concat(parts);
}

function tooLarge(): RefusedRequestError {
  return new RefusedRequestError(413, 'body_too_large', `A conversation's name travels in at most ${MAX_BODY_BYTES} bytes.`);
}
