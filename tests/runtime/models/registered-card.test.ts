// A registered card is what the conductor plans condensation by: the same conversation that fits the
// default window is condensed once a card says the model's window is small.
import { afterEach, expect, it } from 'vitest';
import { createConductor } from '../../../src/runtime/agent/index.js';
import { registerModelCard } from '../../../src/runtime/models/index.js';
import type { ModelReply, ModelRequest } from '../../../src/runtime/contract/model.js';
import { record, say, usage } from '../agent/helpers.js';

let remove: (() => void) | undefined;
afterEach(() => remove?.());

/** Answers at length, reporting the prompt size as an API would, and answers the summarizer briefly. */
const model = async (request: ModelRequest): Promise<ModelReply> =>
  request.system?.startsWith('You condense the earlier part')
    ? say('Goal: talk.')
    : say('a long answer about the plan. '.repeat(200), usage(Math.ceil(JSON.stringify(request.messages).length / 4), 500));

async function talk(modelId: string) {
  const agent = createConductor({ model: modelId, compaction: { keepRecent: 2 } }, { invokeModel: model });
  const events = record(agent);
  for (const prompt of ['first', 'second', 'third', 'fourth']) await agent.submit(prompt);
  await agent.close();
  return events.filter((e) => e.kind === 'compacted').length;
}

it('condenses by the window of a registered card, not the default one', async () => {
  expect(await talk('acme-small')).toBe(0);
  remove = registerModelCard({ id: 'acme-small', contextWindow: 4_000, maxOutputTokens: 500 });
  expect(await talk('acme-small')).toBeGreaterThan(0);
});
