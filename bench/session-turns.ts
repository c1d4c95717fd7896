// Deterministic turns of a coding agent's session, shared by the store benchmarks, so that every run
// measures the same bytes.
import type { Turn } from '../src/runtime/contract/index.js';

let seed = 42;
function random(): number {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
  return seed / 2_147_483_648;
}

const WORDS =
  'the session store keeps every turn of a conversation as a node whose id hashes its parent turn and time so that a crash never loses history tool result file search notes build pipeline error retry'.split(
    ' ',
  );

export function prose(words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(random() * WORDS.length)]);
  return out.join(' ');
}

/** One settled run: a question, a tool call, its result, an answer. */
export function run(index: number): Turn[] {
  const callId = `toolu_${index.toString(36).padStart(8, '0')}`;
  return [
    { role: 'user', blocks: [{ kind: 'text', text: prose(10 + Math.floor(random() * 30)) }] },
    {
      role: 'assistant',
      blocks: [
        { kind: 'text', text: prose(5 + Math.floor(random() * 20)) },
        { kind: 'tool_call', id: callId, name: 'files.search', input: { query: prose(3), path: `src/module${index % 97}`, limit: 20 } },
      ],
    },
    { role: 'user', blocks: [{ kind: 'tool_result', callId, content: prose(40 + Math.floor(random() * 90)) }] },
    { role: 'assistant', blocks: [{ kind: 'text', text: prose(20 + Math.floor(random() * 60)) }] },
  ];
}
