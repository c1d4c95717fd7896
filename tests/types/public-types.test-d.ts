// The types a user's code leans on without writing them: what `submit`'s `output` makes of the
// snapshot, what `tool()` makes of `execute`'s input, what `agentTool` gives back. Checked by tsc, not
// run (vitest's typecheck mode, `npm test`): a wrong inference fails the run, and so does a
// `@ts-expect-error` line that stops being an error.
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import * as v from 'valibot';
import { createAgent, type Agent, type RunEvent, type RunSnapshot } from 'indusagi';
import type { McpClient } from 'indusagi/mcp';
import { agentTool, type AgentToolResult } from 'indusagi/agents';
import { tool } from 'indusagi/tools';
import type { ToolContext } from 'indusagi/tools';
import type { ToolDefinition } from 'indusagi/runtime';

declare const agent: Agent;

describe("submit's output overload", () => {
  it('types the settled snapshot’s output from the schema', async () => {
    const snapshot = await agent.submit('Rate it', { output: z.object({ score: z.number(), note: z.string().optional() }) });
    if (snapshot.status === 'settled') {
      expectTypeOf(snapshot.output).toEqualTypeOf<{ score: number; note?: string | undefined }>();
    } else {
      // A run waiting for an approval has no answer yet.
      expectTypeOf(snapshot.status).toEqualTypeOf<'waiting'>();
      expectTypeOf(snapshot.output).toEqualTypeOf<undefined>();
    }
  });

  it('uses the schema’s output type, after transforms and defaults', async () => {
    const schema = z.object({ when: z.string().transform((text) => new Date(text)), tries: z.number().default(1) });
    const snapshot = await agent.submit('When?', { output: schema });
    if (snapshot.status === 'settled') expectTypeOf(snapshot.output).toEqualTypeOf<{ when: Date; tries: number }>();
  });

  it('works for any Standard Schema library', async () => {
    const snapshot = await agent.submit('Name?', { output: v.object({ name: v.string() }) });
    if (snapshot.status === 'settled') expectTypeOf(snapshot.output).toEqualTypeOf<{ name: string }>();
  });

  it('without output, the snapshot is a plain RunSnapshot with no typed output', async () => {
    const run = agent.submit('Hello');
    expectTypeOf(await run).toEqualTypeOf<RunSnapshot>();
    // An output is there only as `unknown` (a JSON Schema's), nothing a typed field can be read from.
    expectTypeOf((await run).output).toBeUnknown();
    // Iterated, a run is its events either way.
    expectTypeOf(run).toExtend<AsyncIterable<RunEvent>>();
  });

  it('a JSON Schema output validates at run time but types nothing', async () => {
    expectTypeOf(await agent.submit('Rate it', { output: { type: 'object' } })).toEqualTypeOf<RunSnapshot>();
  });

  it('refuses reading the output before checking that the run settled', async () => {
    const snapshot = await agent.submit('Rate it', { output: z.object({ score: z.number() }) });
    // @ts-expect-error a run waiting for an approval has no output yet
    void snapshot.output.score;
  });
});

describe("tool() infers execute's input", () => {
  it('from a zod schema, its output type', () => {
    tool({
      name: 'weather',
      description: 'The weather for a city.',
      inputSchema: z.object({ city: z.string(), days: z.number().int().default(1) }),
      execute: (input, ctx) => {
        expectTypeOf(input).toEqualTypeOf<{ city: string; days: number }>();
        expectTypeOf(ctx).toEqualTypeOf<ToolContext>();
        return input.city;
      },
    });
  });

  it('from a valibot schema', () => {
    tool({
      name: 'lookup',
      description: 'Looks a word up.',
      inputSchema: v.object({ word: v.string(), limit: v.optional(v.number()) }),
      execute: (input) => {
        expectTypeOf(input).toEqualTypeOf<{ word: string; limit?: number | undefined }>();
      },
    });
  });

  it('from a JSON Schema, the type it is declared with (unknown when none is)', () => {
    tool<{ city: string }>({
      name: 'weather',
      description: 'The weather for a city.',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      execute: (input) => expectTypeOf(input).toEqualTypeOf<{ city: string }>(),
    });
    tool({
      name: 'echo',
      description: 'Echoes.',
      inputSchema: { type: 'object' },
      execute: (input) => expectTypeOf(input).toBeUnknown(),
    });
  });

  it('refuses an execute that reads a field the schema does not have', () => {
    tool({
      name: 'weather',
      description: 'The weather for a city.',
      inputSchema: z.object({ city: z.string() }),
      // @ts-expect-error `country` is not in the schema
      execute: (input) => input.country,
    });
  });

  it('returns a ToolDefinition', () => {
    const made = tool({ name: 'n', description: 'd', inputSchema: z.object({}), execute: () => 1 });
    expectTypeOf(made).toExtend<ToolDefinition>();
  });
});

describe('agentTool', () => {
  it('is a ToolDefinition an agent can list, from a config or an agent', () => {
    expectTypeOf(agentTool(agent, { name: 'researcher', description: 'Researches.' })).toEqualTypeOf<ToolDefinition>();
    expectTypeOf(
      agentTool({ model: 'claude-sonnet-4-5', system: 'You research.' }, { name: 'r', description: 'd' }),
    ).toEqualTypeOf<ToolDefinition>();
  });

  it('gives back the session the sub-agent ran in and its answer', () => {
    expectTypeOf<AgentToolResult>().toEqualTypeOf<{ sessionId: string; answer: unknown }>();
  });

  it('needs a name and a description', () => {
    // @ts-expect-error the model needs a name to call it by
    agentTool(agent, { description: 'Researches.' });
    // @ts-expect-error and a description to know when to
    agentTool(agent, { name: 'researcher' });
  });
});

describe('tools an agent takes', () => {
  it('takes an MCP client’s readonly tool list as it is, alone or beside its own tools (issue 41.3)', () => {
    const everything = {} as McpClient;
    expectTypeOf(everything.tools()).toExtend<readonly unknown[]>();
    // `createAgent({ tools: everything.tools() })` as docs/mcp.md writes it: no copy, no cast.
    expectTypeOf(createAgent({ model: 'claude-sonnet-5-5', tools: everything.tools() })).toEqualTypeOf<Agent>();
    expectTypeOf(
      createAgent({
        model: 'claude-sonnet-5-5',
        tools: [...everything.tools(), tool({ name: 't', description: 'd', inputSchema: z.object({}), execute: () => 'ok' })],
      }),
    ).toEqualTypeOf<Agent>();
    const frozen: readonly ToolDefinition[] = Object.freeze([]);
    expectTypeOf(createAgent({ model: 'claude-sonnet-5-5', tools: frozen })).toEqualTypeOf<Agent>();
  });
});
