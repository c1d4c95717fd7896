import type { LoopHooks } from '../loop/types.js';

/**
 * Runs two sets of hooks as one, `first` before `second`: `second.beforeModelCall` sees the context as
 * `first` left it (condensed, say), and `second.recoverModelCall` is asked only if `first` declined.
 */
export function composeHooks(first: LoopHooks | undefined, second: LoopHooks | undefined): LoopHooks | undefined {
  if (first === undefined || second === undefined) return first ?? second;
  const hooks: LoopHooks = {};
  const beforeA = first.beforeModelCall;
  const beforeB = second.beforeModelCall;
  if (beforeA && beforeB) hooks.beforeModelCall = async (context, signal) => beforeB(await beforeA(context, signal), signal);
  else hooks.beforeModelCall = beforeA ?? beforeB;
  const afterA = first.afterModelCall;
  const afterB = second.afterModelCall;
  if (afterA && afterB) {
    hooks.afterModelCall = async (reply, sent) => {
      await afterA(reply, sent);
      await afterB(reply, sent);
    };
  } else hooks.afterModelCall = afterA ?? afterB;
  const recoverA = first.recoverModelCall;
  const recoverB = second.recoverModelCall;
  if (recoverA && recoverB)
    hooks.recoverModelCall = async (error, context, signal) => (await recoverA(error, context, signal)) ?? recoverB(error, context, signal);
  else hooks.recoverModelCall = recoverA ?? recoverB;
  return hooks;
}
