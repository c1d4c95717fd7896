// A CommonJS TypeScript consumer (compiled by the pack test under nodenext only): `import` here
// compiles to require(), which TypeScript >= 5.8 allows for an ES module under `module: nodenext`.
import { createAgent, type RunEvent } from 'indusagi';

export function deltas(events: RunEvent[]): string {
  return events.map((event) => (event.kind === 'text_delta' ? event.delta : '')).join('');
}

export const agent = createAgent({ model: 'claude-sonnet-5-5' });
