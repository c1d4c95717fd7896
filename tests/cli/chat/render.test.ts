import { describe, expect, it } from 'vitest';
import { RunRenderer } from '../../../src/cli/chat/render.js';
import { paintFor } from '../../../src/cli/style.js';
import type { RunEvent } from '../../../src/runtime/index.js';
import { HOSTILE, STEERING } from '../hostile-text.js';

// The only escape sequences our own paint emits (styleText's SGR codes for the formats the CLI uses).
const OWN_SGR = /\u001b\[(?:1|2|22|31|32|33|35|36|39)m/g;

function render(events: RunEvent[], stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = {}): string {
  let out = '';
  const renderer = new RunRenderer((text) => (out += text), paintFor(stream, env));
  for (const event of events) renderer.handle(event);
  // As the chat reports a call still waiting after a resume: the model chose the id.
  renderer.line(paintFor(stream, env)('yellow', `  ? files.write ${HOSTILE} waits for approval: /approve toolu_2\n  ? fake line two`));
  renderer.end();
  return out;
}

const events: RunEvent[] = [
  { kind: 'text_delta', delta: `Here is the file:\n${HOSTILE}\n` },
  { kind: 'tool_started', callId: 'c1', name: `files.read${HOSTILE}`, input: { path: HOSTILE } },
  { kind: 'tool_finished', callId: 'c1', name: 'files.read', input: { path: 'x' }, result: `${HOSTILE}\nsecond line`, isError: false },
  { kind: 'tool_finished', callId: 'c2', name: 'files.read', input: { path: 'x' }, result: { nested: HOSTILE }, isError: true },
  {
    kind: 'approval_requested',
    callId: 'c3',
    approvalId: `toolu_1\n  ? fake line one ${HOSTILE}`,
    name: 'files.write',
    input: { path: '.bashrc', content: HOSTILE },
  },
] as RunEvent[];

describe('what the model or a tool produced reaches the terminal neutralised', () => {
  for (const [how, stream, env] of [
    ['piped', { isTTY: false }, {}],
    ['with NO_COLOR', { isTTY: true }, { NO_COLOR: '1' }],
    ['in colour on a terminal', { isTTY: true }, {}],
  ] as const) {
    it(how, () => {
      const out = render(events, stream, env);
      expect(out.replace(OWN_SGR, '')).not.toMatch(STEERING);
      // Shown, not obeyed: the escapes read as text.
      expect(out).toContain('\\x1b]52;c;ZWNobyBwd25lZAo=\\x07');
      expect(out).toContain('\\x1b[1A\\x1b[2K');
      expect(out).toContain('\\x9b2K');
      expect(out).toContain('over\\x0dwritten');
      expect(out).toContain('file\\u202etxt.exe');
      // Every status line is one line: a newline in an id or a name cannot start a fake one.
      const plain = out.replace(OWN_SGR, '');
      expect(plain.split('\n').filter((l) => l.includes('fake line one'))).toEqual([
        expect.stringMatching(/^ {2}\? files\.write .*\/approve toolu_1\\n {2}\? fake line one/),
      ]);
      expect(plain.split('\n').filter((l) => l.includes('fake line two'))).toEqual([
        expect.stringMatching(/^ {2}\? files\.write .*\/approve toolu_2\\n {2}\? fake line two$/),
      ]);
      expect(plain).toContain('Here is the file:\n');
    });
  }

  it('keeps what is only text as it was: newlines and tabs in replies, CRLF as a line break, non-Latin scripts', () => {
    const out = render([{ kind: 'text_delta', delta: 'a\tb\r\nשלום عربي 中文 😀\n' }] as RunEvent[], { isTTY: false });
    expect(out.startsWith('a\tb\nשלום عربي 中文 😀\n')).toBe(true);
  });
});
