import { IndusagiError } from '../errors/index.js';

/** `agentTool(...)` or `handoff(...)` called with something that cannot work, refused when the tool is made. */
export class AgentToolError extends IndusagiError {
  static override readonly errorName: string = 'AgentToolError';
  constructor(message: string) {
    super('invalid_config', message);
  }
}
