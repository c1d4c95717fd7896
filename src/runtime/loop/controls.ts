import type { ModelRequest, ThinkingControl, ModelControls } from '../contract/model.js';
import type { ToolNameMap } from '../tools/names.js';

/** The controls of one run, resolved: the config's with the `submit`'s over them, thinking on or absent. */
export type RunControls = Omit<ModelControls, 'thinking'> & { thinking?: ThinkingControl };

/**
 * Puts the run's controls on one request. A forced `toolChoice` (`any`, a named tool) applies to the
 * run's first model call only: afterwards the model must be free to answer, or every step would have to
 * call a tool until `maxSteps`. `auto` and `none` apply to every call. A named tool is sent by the name
 * the model sees.
 */
export function applyControls(request: ModelRequest, controls: RunControls, firstCall: boolean, names: ToolNameMap): void {
  if (controls.temperature !== undefined) request.temperature = controls.temperature;
  if (controls.topP !== undefined) request.topP = controls.topP;
  if (controls.stopSequences !== undefined) request.stopSequences = controls.stopSequences;
  if (controls.thinking !== undefined) request.thinking = controls.thinking;
  const choice = controls.toolChoice;
  if (choice === undefined) return;
  if (choice === 'auto' || choice === 'none') request.toolChoice = choice;
  else if (firstCall) request.toolChoice = choice === 'any' ? 'any' : { tool: names.toModel.get(choice.tool) ?? choice.tool };
}
