// One tool and the model turns of a question it answers, shared by the model loop, the
// cross-transport and the browser tests: the model asks get_weather for Lisbon, reads the
// result, answers.
import { tool } from '../../src/llm/tool.js';
import type { OpenAITurn } from './fake-openai-server.js';

export interface WeatherArgs {
  readonly city: string;
}

/** A get_weather tool that records the arguments of every run. */
export function weatherTool(calls: WeatherArgs[] = []) {
  return tool<WeatherArgs, { city: string; sky: string; celsius: number }>({
    name: 'get_weather',
    description: 'The weather now in a city',
    input: {
      type: 'object',
      properties: { city: { type: 'string', minLength: 1 } },
      required: ['city'],
      additionalProperties: false,
    },
    run: (args) => {
      calls.push(args);
      return { city: args.city, sky: 'clear', celsius: 21 };
    },
  });
}

/** The model's two steps: a call to get_weather, then the answer. */
export function weatherTurns(callId = 'call_w1'): OpenAITurn[] {
  return [
    {
      text: ['Let me check.'],
      toolCalls: [{ id: callId, name: 'get_weather', arguments: '{"city":"Lisbon"}' }],
      usage: { prompt_tokens: 40, completion_tokens: 12 },
    },
    { text: ['Sunny, ', '21 degrees.'], usage: { prompt_tokens: 70, completion_tokens: 6 } },
  ];
}
