import { DEMO_BANNER } from './card/index.js';
import { messageText, type DemoRequest } from './request.js';

const MENTIONS_SUMMARY = /\bsummar(?:y|ise|ize|ized|ised|izing|ising)\b/i;
// A summary must leave the context smaller than the turns it replaces, or it is not used: a few short points.
const MAX_POINTS = 5;
const HEAD_POINTS = 2;
const MAX_POINT_CHARS = 60;

/**
 * A condensation request: no tools on offer and a summary asked for, in the system prompt or the
 * last user message. A chat request always carries the chat's tools, so it never looks like this.
 */
export function isSummaryRequest(request: DemoRequest): boolean {
  if (request.tools.length > 0) return false;
  const last = request.messages.at(-1);
  return MENTIONS_SUMMARY.test(request.system) || (last !== undefined && last.role === 'user' && MENTIONS_SUMMARY.test(messageText(last)));
}

/**
 * A short, honest summary: lines of what was said, the user's lines only when the transcript marks
 * speakers (points of an earlier summary included, so they carry forward). Bounded: the first few
 * and the latest few points, so condensing always shrinks the context.
 */
export function summarize(request: DemoRequest): string {
  // Lines that mention the summary are the summarizer's instructions, not the conversation.
  const lines = request.messages
    .flatMap((message) => messageText(message).split('\n'))
    .map((line) => line.trim().replace(/^-\s+/, ''))
    .filter((line) => line !== '' && !line.startsWith(DEMO_BANNER) && !MENTIONS_SUMMARY.test(line));
  const userLines = lines.filter((line) => /^\[?(?:user|human)\]?\s*[:>]/i.test(line));
  const distinct = [...new Set(userLines.length > 0 ? userLines : lines)];
  const points =
    distinct.length <= MAX_POINTS
      ? distinct
      : [
          ...distinct.slice(0, HEAD_POINTS),
          `…${distinct.length - MAX_POINTS} more in between…`,
          ...distinct.slice(-(MAX_POINTS - HEAD_POINTS)),
        ];
  const body = points.length > 0 ? points.map((line) => `- ${clip(line)}`) : ['- (nothing was said yet)'];
  return [`${DEMO_BANNER} Summary of the earlier conversation:`, ...body].join('\n');
}

function clip(line: string): string {
  return line.length > MAX_POINT_CHARS ? `${line.slice(0, MAX_POINT_CHARS - 1)}…` : line;
}
