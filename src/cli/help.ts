import { SLASH_HELP } from './chat/slash.js';
import { DEFAULT_MEMORY, DEFAULT_STORE } from './args.js';

export const USAGE = `indusagi: a terminal agent over Claude or OpenAI's models

usage:
  indusagi chat [--session ID] [--model M] [--store DIR] [--memory FILE]
  indusagi sessions ls [--store DIR]
  indusagi sessions show ID [--store DIR]
  indusagi sessions tree ID [--store DIR]
  indusagi sessions export ID [--format md|json] [--store DIR]
  indusagi help | --version

Sessions live in --store (default ./${DEFAULT_STORE}), remembered facts in --memory
(default ./${DEFAULT_MEMORY}). The file tools reach only the current folder.
--model names the provider and model: anthropic:MODEL or openai:MODEL (a bare MODEL
is Anthropic's). Claude needs ANTHROPIC_API_KEY (ANTHROPIC_BASE_URL for another
Anthropic-compatible endpoint), OpenAI OPENAI_API_KEY (and OPENAI_BASE_URL); without
--model the chat uses whichever key is set, Anthropic's first. Without the key it
needs, it talks to the offline demo model.

in a chat:
${SLASH_HELP.map((line) => `  ${line}`).join('\n')}
`;
