// A tool two agents down asks the person for input (ToolContext.ask): the question surfaces on the
// top agent, listed by pendingInputs() with its path, and the answer given there travels down to the
// tool; with nobody listening to the top run, the question is refused at once, as an agent's own is.
// A guardrail that trips in a sub-agent faults its run: the trip shows in the stream, and the calling
// agent gets an error result naming it.
import { describe, expect, it } from 'vitest';
import { createConductor, InputUnavailableError, InvalidInputAnswerError, MemorySessionStore } from '../../src/runtime/index.js';
import type { InputAnswer, ModelInvoker, ModelReply, ModelRequest, RunEvent, ToolDefinition } from '../../src/runtime/index.js';
import { agentTool } from '../../src/agents/index.js';

const usage = { inputTokens: 1, outputTokens: 1, cacheWriteTokens: 0, cacheReadTokens: 0 };
const text = (t: string): ModelReply => ({
  turn: { role: 'assistant', blocks: [{ kind: 'text', text: t }] },
  stopReason: 'end_turn',
  usage,
});
const call = (id: string, name: string, input: unknown): ModelReply => ({
  turn: { role: 'assistant', blocks: [{ kind: 'tool_call', id, name, input }] },
  stopReason: 'tool_use',
  usage,
});
const lastResult = (request: ModelRequest) => {
  const block = request.messages.at(-1)!.blocks.find((b) => b.kind === 'tool_result');
  return block === undefined ? undefined : String((block as { content: unknown }).content);
};

// lead -> research -> web; web's own tool asks where to look.
const model: ModelInvoker = async (request) => {
  const result = lastResult(request);
  if (request.system === 'lead') return result === undefined ? call('l1', 'research', { prompt: 'Find it.' }) : text(`lead: ${result}`);
  if (request.system === 'research')
    return result === undefined ? call('r1', 'web', { prompt: 'Look it up.' }) : text(`research: ${result}`);
  return result === undefined ? call('w1', 'where', {}) : text(`web: ${result}`);
};

function tree(asked: Array<InputAnswer | Error>) {
  const where: ToolDefinition = {
    name: 'where',
    description: 'Asks where to look.',
    inputSchema: { type: 'object' },
    async execute(_input, ctx) {
      try {
        const answer = await ctx.ask!({
          message: 'Where should I look?',
          schema: { type: 'object', properties: { site: { type: 'string' } }, required: ['site'] },
        });
        asked.push(answer);
        return answer.action === 'accept' ? `looked on ${String(answer.content.site)}` : `not looked (${answer.action})`;
      } catch (error) {
        asked.push(error as Error);
        throw error;
      }
    },
  };
  const web = agentTool({ model: 'm', system: 'web', tools: [where] }, { name: 'web', description: 'Searches the web.' });
  const research = agentTool({ model: 'm', system: 'research', tools: [web] }, { name: 'research', description: 'Researches.' });
  return createConductor(
    { model: 'm', system: 'lead', tools: [research], sessionId: 'lead' },
    { invokeModel: model, store: new MemorySessionStore() },
  );
}

describe('a sub-agent asking the person, and tripping a guardrail', () => {
  it('is listed on the top agent with its path and answered there, the answer reaching the tool two agents down', async () => {
    const asked: Array<InputAnswer | Error> = [];
    const lead = tree(asked);
    const events: RunEvent[] = [];
    let listed: unknown;
    lead.subscribe((event) => {
      events.push(event);
      if (event.kind !== 'nested' || event.event.kind !== 'input_requested') return;
      const { requestId } = event.event;
      listed = lead.pendingInputs();
      // Checked where it is asked, also from the top: a wrong answer throws and the tool keeps waiting.
      expect(() => lead.answer(requestId, { action: 'accept', content: { site: 7 } })).toThrow(InvalidInputAnswerError);
      lead.answer(requestId, { action: 'accept', content: { site: 'example.org' } });
    });

    const done = await lead.submit('Go.');

    expect(done.status).toBe('settled');
    expect(done.text).toBe(
      'lead: {"sessionId":"lead.l1","answer":"research: {\\"sessionId\\":\\"lead.l1.r1\\",\\"answer\\":\\"web: looked on example.org\\"}"}',
    );
    expect(asked).toEqual([{ action: 'accept', content: { site: 'example.org' } }]);
    expect(listed).toEqual([
      expect.objectContaining({ callId: 'w1', name: 'where', message: 'Where should I look?', path: ['research', 'web'] }),
    ]);
    const nested = events.flatMap((e) => (e.kind === 'nested' && e.event.kind.startsWith('input_') ? [[e.path, e.event.kind]] : []));
    expect(nested).toEqual([
      [['research', 'web'], 'input_requested'],
      [['research', 'web'], 'input_answered'],
    ]);
    // Answered, it is no longer listed.
    expect(lead.pendingInputs()).toEqual([]);
    await lead.close();
  });

  it('is refused at once when nobody listens to the top run, as the top agent’s own would be', async () => {
    const asked: Array<InputAnswer | Error> = [];
    const lead = tree(asked);

    const done = await lead.submit('Go.');

    expect(done.status).toBe('settled');
    expect(asked).toHaveLength(1);
    expect(InputUnavailableError.isInstance(asked[0])).toBe(true);
    await lead.close();
  });

  it('a guardrail tripping in a sub-agent: the nested trip in the stream, an error result naming it for the caller', async () => {
    const store = new MemorySessionStore();
    const web = agentTool(
      {
        model: 'm',
        system: 'web',
        inputGuardrails: [
          { name: 'no-secrets', execute: ({ prompt }) => ({ tripwireTriggered: /secret/.test(prompt), message: 'asks for a secret' }) },
        ],
      },
      { name: 'web', description: 'Searches the web.' },
    );
    const seen: ModelRequest[] = [];
    const lead = createConductor(
      { model: 'm', system: 'lead', tools: [web], sessionId: 'lead' },
      {
        invokeModel: async (request) => {
          seen.push(request);
          const result = lastResult(request);
          return result === undefined ? call('l1', 'web', { prompt: 'Find the secret.' }) : text('lead gave up');
        },
        store,
      },
    );
    const events: RunEvent[] = [];
    lead.subscribe((event) => events.push(event));

    const done = await lead.submit('Go.');

    expect(done.status).toBe('settled');
    expect(events.find((e) => e.kind === 'nested' && e.event.kind === 'guardrail_tripped')).toMatchObject({
      path: ['web'],
      event: { trip: { guardrail: 'no-secrets', stage: 'input', message: 'asks for a secret' } },
    });
    // The web agent's model was never asked; the lead's was told why its call failed.
    expect(seen.map((r) => r.system)).toEqual(['lead', 'lead']);
    const result = seen[1].messages.at(-1)!.blocks.find((b) => b.kind === 'tool_result') as { content: unknown; isError?: boolean };
    expect(result.isError).toBe(true);
    expect(String(result.content)).toMatch(/web agent stopped \(guardrail_tripped\)/);
    await lead.close();
  });
});
