// Servers that break the rules, spawned for real (tests/mcp/fixtures/hostile-server.mjs): none may hang
// a call past its timeout, take this process down, or cost the model more than a bounded result.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, McpToolError, type McpChange, type McpClient, type McpToolDefinition } from '../../src/mcp/index.js';
import type { ToolContext } from '../../src/runtime/index.js';
import { hostile } from './reference-servers.js';

let client: McpClient;
beforeAll(async () => {
  client = await connectMcp('hostile', { ...hostile(), needsApproval: false, maxResultChars: 50_000 });
});
afterAll(() => client.close());

const ctx = (over: Partial<ToolContext> = {}): ToolContext => ({ signal: new AbortController().signal, callId: 'call-1', ...over });
const tool = (name: string): McpToolDefinition => {
  const found = client.tools().find((t) => t.name === `hostile.${name}`);
  if (found === undefined) throw new Error(`no tool hostile.${name}`);
  return found;
};
const run = (name: string, input: unknown = {}, over?: Partial<ToolContext>) => tool(name).execute(input, ctx(over)) as Promise<string>;
const failure = async (promise: Promise<unknown>): Promise<McpToolError> => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!McpToolError.isInstance(error)) throw new Error(`expected an McpToolError, got ${String(error)}`);
  return error;
};
const nextState = (from: McpClient, state: string) =>
  new Promise<void>((resolve) => {
    const stop = from.onChange((change: McpChange) => {
      if (change.kind === 'state' && change.state === state) {
        stop();
        resolve();
      }
    });
  });

describe('a server that lists tools it cannot serve', () => {
  it('refuses those tools, each with its reason, and offers the others', async () => {
    expect(client.refused.map(({ name, reason }) => [name, reason])).toEqual([
      ['bad_schema', 'its inputSchema does not describe an object (type "object")'],
      [
        'worse_schema',
        'tool "hostile.worse_schema" inputSchema: the pattern "(" is not a regular expression (Invalid regular expression: /(/u: Unterminated group)',
      ],
    ]);
    expect(client.tools().map((t) => t.name)).not.toContain('hostile.bad_schema');
    expect(await run('echo', { text: 'still here' })).toBe('still here');
  });
});

describe('a server that writes garbage on stdout', () => {
  it('answers the call anyway: lines that are not JSON-RPC are skipped', async () => {
    expect(await run('garbage')).toBe('answered after the garbage');
    expect(client.state).toBe('connected');
  });
});

describe('a huge result', () => {
  it('reaches the model cut to maxResultChars, with a note saying how much there was', async () => {
    const text = await run('huge', { mb: 20 });
    expect(text.startsWith('x'.repeat(50_000))).toBe(true);
    expect(text.slice(50_000)).toBe('\n\n[The result was cut to its first 50,000 of 20,971,520 characters.]');
    expect(await run('echo', { text: 'after' })).toBe('after');
  });
});

describe('a server that hangs', () => {
  it('is cancelled after timeoutMs: the call is a timeout error, and the server is told with notifications/cancelled', async () => {
    const slow = await connectMcp('slow', { ...hostile(), needsApproval: false, timeoutMs: 200 });
    try {
      const hang = slow.tools().find((t) => t.name === 'slow.hang')!;
      const error = await failure(hang.execute({}, ctx()) as Promise<unknown>);
      expect(error.reason).toBe('timeout');
      expect(error.message).toBe('The MCP server "slow" did not answer the call to "hang" in time; the call was cancelled.');
      const seen = JSON.parse((await slow.callTool('cancelled')).text) as unknown[];
      expect(seen).toHaveLength(1);
    } finally {
      await slow.close();
    }
  });

  it('is cancelled after maxTotalTimeoutMs even while progress keeps arriving faster than timeoutMs', async () => {
    const chatty = await connectMcp('chatty', { ...hostile(), needsApproval: false, timeoutMs: 200, maxTotalTimeoutMs: 600 });
    try {
      let progress = 0;
      const pulse = chatty.tools().find((t) => t.name === 'chatty.pulse')!;
      const error = await failure(pulse.execute({}, ctx({ progress: () => progress++ })) as Promise<unknown>);
      expect(error.reason).toBe('timeout');
      expect(progress).toBeGreaterThan(0);
      const seen = JSON.parse((await chatty.callTool('cancelled')).text) as unknown[];
      expect(seen).toHaveLength(1);
    } finally {
      await chatty.close();
    }
  });

  it('is cancelled when the run aborts: the call fails as cancelled and the server is told', async () => {
    const before = (JSON.parse((await client.callTool('cancelled')).text) as unknown[]).length;
    const abort = new AbortController();
    // Aborted once the server has the call (its first progress says so).
    const pending = run('hang', {}, { signal: abort.signal, progress: () => abort.abort() });
    const error = await failure(pending);
    expect([error.reason, error.message]).toEqual(['aborted', 'The call to "hang" was cancelled.']);
    const after = JSON.parse((await client.callTool('cancelled')).text) as unknown[];
    expect(after).toHaveLength(before + 1);
  });
});

describe('a server that answers a call with a result that is not an object', () => {
  it('fails that call at once as a protocol error, not after timeoutMs', async () => {
    const error = await failure(run('scalar'));
    expect(error.reason).toBe('protocol');
    expect(error.message).toContain('a number where a result object belongs');
    expect(await run('echo', { text: 'after' })).toBe('after');
  });
});

describe('a server that dies mid-call', () => {
  it('fails that call as a tool error; the next call starts the server again and works', async () => {
    const mortal = await connectMcp('mortal', { ...hostile(), needsApproval: false });
    try {
      const pidTool = mortal.tools().find((t) => t.name === 'mortal.pid')!;
      const first = await (pidTool.execute({}, ctx()) as Promise<string>);
      const gone = nextState(mortal, 'disconnected');
      const error = await failure(
        mortal
          .tools()
          .find((t) => t.name === 'mortal.die')!
          .execute({}, ctx()) as Promise<unknown>,
      );
      expect(error.reason).toBe('disconnected');
      expect(error.message).toMatch(/^The MCP server "mortal" went away during the call to "die" \(.+\); the next call connects again\./);
      await gone;
      expect(mortal.state).toBe('disconnected');
      const second = await (pidTool.execute({}, ctx()) as Promise<string>);
      expect(second).not.toBe(first);
      expect(mortal.state).toBe('connected');
    } finally {
      await mortal.close();
    }
  });
});

describe('a server that floods notifications/tools/list_changed', () => {
  it('is listed again a few times, not once per notification, and keeps answering', async () => {
    const flooder = await connectMcp('flooder', { ...hostile(), needsApproval: false });
    try {
      const changes: number[] = [];
      flooder.onChange((change) => change.kind === 'tools' && changes.push(change.tools.length));
      expect(await flooder.callTool('flood', { n: 5000 }).then((r) => r.text)).toBe('flooded');
      // The stats call is answered after every list the flood caused has been asked for.
      const { lists } = JSON.parse((await flooder.callTool('stats')).text) as { lists: number };
      expect(lists).toBeGreaterThanOrEqual(2);
      expect(lists).toBeLessThan(50);
      expect(flooder.tools().length).toBe(client.tools().length);
      expect(await flooder.callTool('echo', { text: 'calm' }).then((r) => r.text)).toBe('calm');
    } finally {
      await flooder.close();
    }
  });
});

describe('close()', () => {
  it('ends the process the client spawned', async () => {
    const closing = await connectMcp('closing', { ...hostile(), needsApproval: false });
    const pid = Number((await closing.callTool('pid')).text);
    expect(() => process.kill(pid, 0)).not.toThrow();
    await closing.close();
    expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
    const error = await failure(closing.tools()[0].execute({}, ctx()) as Promise<unknown>);
    expect(error.reason).toBe('closed');
  });
});
