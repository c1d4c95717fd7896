// How the server holds kept-alive connections: an idle one stays open KEEP_ALIVE_MS (longer than the idle
// timeouts of clients and load balancers), so a client reusing it never meets the server closing it. Node
// announces the limit in each response's `Keep-Alive: timeout=N` header, which is what a client goes by.
import { Agent, get, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEEP_ALIVE_MS, listen, type Listening } from '../../src/server/listen.js';

let server: Listening;
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

beforeAll(async () => {
  server = await listen(async () => new Response('ok'));
});

afterAll(async () => {
  agent.destroy();
  await server?.close();
});

function request(): Promise<{ response: IncomingMessage; socket: Socket; body: string }> {
  return new Promise((resolve, reject) => {
    get(`${server.url}/`, { agent }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ response, socket: response.socket, body }));
      response.on('error', reject);
    }).on('error', reject);
  });
}

describe('listen', () => {
  it(`keeps an idle connection open ${KEEP_ALIVE_MS / 1000} s, and says so in each response's Keep-Alive header`, async () => {
    const first = await request();
    expect(first.body).toBe('ok');
    expect(first.response.headers.connection).toBe('keep-alive');
    expect(first.response.headers['keep-alive']).toBe(`timeout=${KEEP_ALIVE_MS / 1000}`);
    // The next request goes over the same connection, and is told the same.
    const second = await request();
    expect(second.socket).toBe(first.socket);
    expect(second.response.headers['keep-alive']).toBe(`timeout=${KEEP_ALIVE_MS / 1000}`);
  });
});
