import { errorMessage } from '../../errors/index.js';
import type { GuardrailResult } from '../contract/guardrail.js';

/** A guardrail as the runner sees it: input and output guardrails alike. */
export type Guardrail<Args> = { name: string; execute(args: Args): GuardrailResult | Promise<GuardrailResult> };

/** A guardrail that stops the run: what it said, or what went wrong running it (`cause`). */
export type Verdict = { guardrail: string; message: string; outputInfo?: unknown; cause?: unknown };

/**
 * Runs `guardrails` side by side on `args`. Resolves with the first that trips, as soon as it does
 * (the others are not waited for: the caller aborts the signal they were given), or with null once
 * every one passed. A guardrail that throws, or answers anything but `{ tripwireTriggered: boolean }`
 * with an optional string `message`, trips too: a check that could not run lets nothing through.
 */
export function firstTrip<Args>(guardrails: readonly Guardrail<Args>[], args: Args): Promise<Verdict | null> {
  if (guardrails.length === 0) return Promise.resolve(null);
  return new Promise((resolve) => {
    let left = guardrails.length;
    let decided = false;
    for (const guardrail of guardrails) {
      void verdictOf(guardrail, args).then((verdict) => {
        if (decided) return;
        if (verdict !== null) {
          decided = true;
          resolve(verdict);
        } else if (--left === 0) resolve(null);
      });
    }
  });
}

/** One guardrail's verdict; never rejects. */
async function verdictOf<Args>(guardrail: Guardrail<Args>, args: Args): Promise<Verdict | null> {
  let result: unknown;
  try {
    result = await guardrail.execute(args);
  } catch (error) {
    return { guardrail: guardrail.name, message: `the guardrail threw: ${errorMessage(error)}`, cause: error };
  }
  const answer = result as Partial<GuardrailResult> | null;
  if (
    typeof answer !== 'object' ||
    answer === null ||
    typeof answer.tripwireTriggered !== 'boolean' ||
    (answer.message !== undefined && typeof answer.message !== 'string')
  ) {
    return {
      guardrail: guardrail.name,
      message: `the guardrail answered ${describe(result)}, not { tripwireTriggered: boolean, message?: string }`,
    };
  }
  if (!answer.tripwireTriggered) return null;
  const verdict: Verdict = { guardrail: guardrail.name, message: answer.message ?? 'its tripwire was triggered' };
  if (answer.outputInfo !== undefined) verdict.outputInfo = answer.outputInfo;
  return verdict;
}

/** What a guardrail answered, shortly, for the trip's message. */
function describe(value: unknown): string {
  if (typeof value === 'function') return 'a function';
  if (value === undefined || typeof value === 'symbol' || typeof value === 'bigint') return String(value);
  try {
    return JSON.stringify(value).slice(0, 200);
  } catch (error) {
    return `an object JSON cannot hold (${errorMessage(error)})`;
  }
}
