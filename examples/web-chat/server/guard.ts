import { RefusedRequestError } from './refused.js';

/**
 * What keeps other web pages out (the README says what it does not cover). The server listens on
 * 127.0.0.1 only, but a browser will still carry requests there for other sites:
 *
 * - a DNS-rebinding page (`evil.example` re-pointed at 127.0.0.1) is same-origin with itself and
 *   reads every answer; it still names its own host, so any Host but ours is refused;
 * - a page on another site (or another port of this host) can send a form, `text/plain` or a
 *   `no-cors` fetch without asking: the API refuses a foreign `Origin` or `Sec-Fetch-Site`, and takes
 *   only `application/json`, which no page can send cross-site without a CORS preflight this server
 *   never grants.
 */
export class RequestGuard {
  private readonly hosts: Set<string>;
  private readonly origins: Set<string>;

  constructor(port: number) {
    this.hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
    this.origins = new Set([...this.hosts].map((host) => `http://${host}`));
  }

  /** Every request: the Host header must name this server. */
  checkHost(request: Request): void {
    const host = request.headers.get('host') ?? '';
    if (this.hosts.has(host.toLowerCase())) return;
    throw new RefusedRequestError(403, 'forbidden_host', `This server answers only to ${[...this.hosts].join(' and ')}, not to "${host}".`);
  }

  /** API calls: only from the page itself, and with a JSON body when there is one (the server asks that too). */
  checkApiCall(request: Request): void {
    const origin = request.headers.get('origin');
    if (origin !== null && !this.origins.has(origin.toLowerCase())) {
      throw new RefusedRequestError(403, 'forbidden_origin', `API calls are taken only from this server's own page, not from "${origin}".`);
    }
    // Sent by browsers even where they leave Origin out; absent from non-browser clients. "none": typed in the address bar.
    const site = request.headers.get('sec-fetch-site');
    if (site !== null && site !== 'same-origin' && site !== 'none') {
      throw new RefusedRequestError(
        403,
        'forbidden_origin',
        `API calls are taken only from this server's own page, not from a ${site} page.`,
      );
    }
    if (request.method !== 'POST' && request.method !== 'PATCH') return;
    const type = (request.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
    if (type !== 'application/json') {
      throw new RefusedRequestError(
        415,
        'unsupported_media_type',
        `Send the body as application/json, not ${type === '' ? 'untyped' : type}.`,
      );
    }
  }
}
