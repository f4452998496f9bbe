// Tools a model may call: `tool({ name, description, input, run })`. `input` is the JSON Schema
// of the arguments, sent to the model as is and compiled once, here, with ajv: arguments that
// do not match never reach `run`, the model gets the validation errors as the tool's error
// instead (and usually corrects itself on its next step).
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { InvalidArgumentError } from '../core/errors.js';
import type { ToolDefinition } from './language-model.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (
  ajv: Ajv2020,
) => void;

/** What a tool's `run` gets besides its arguments. */
export interface ToolRunContext {
  /** Aborted when the task is cancelled, its stream's client leaves, or the run's time is up. */
  readonly signal: AbortSignal;
  /** The model's id for this call. */
  readonly callId: string;
}

export interface ToolSpec<Args, Result> {
  /** Letters, digits, `_` and `-`, at most 64 characters (what the providers accept). */
  readonly name: string;
  /** What the tool does and when to use it: the model reads this to decide. */
  readonly description: string;
  /** JSON Schema (2020-12) of the arguments object. */
  readonly input: Readonly<Record<string, unknown>>;
  run(args: Args, context: ToolRunContext): Result | Promise<Result>;
}

export interface Tool<Args = Record<string, unknown>, Result = unknown> extends ToolDefinition {
  run(args: Args, context: ToolRunContext): Result | Promise<Result>;
  /** Null when `args` match the input schema, else what is wrong, readable by a model. */
  check(args: unknown): string | null;
}

/** A tool whose arguments type is yours to state: `tool<{ city: string }>({ ... })`. */
export function tool<Args = Record<string, unknown>, Result = unknown>(spec: ToolSpec<Args, Result>): Tool<Args, Result> {
  if (typeof spec.name !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(spec.name)) {
    throw new InvalidArgumentError(`tool name ${JSON.stringify(spec.name)} must be 1 to 64 letters, digits, _ or -`);
  }
  if (typeof spec.run !== 'function') throw new InvalidArgumentError(`tool ${spec.name} needs a run function`);
  const schema = spec.input ?? { type: 'object', properties: {} };
  if (schema.type !== 'object') throw new InvalidArgumentError(`tool ${spec.name}: its input schema must be of type object`);
  let validate: ValidateFunction;
  try {
    validate = compiler().compile(schema);
  } catch (error) {
    throw new InvalidArgumentError(`tool ${spec.name}: its input schema does not compile: ${(error as Error).message}`);
  }
  return {
    name: spec.name,
    description: spec.description ?? '',
    parameters: schema,
    run: spec.run,
    check(args) {
      if (validate(args)) return null;
      const issues = (validate.errors ?? []).map(
        (issue) => `${issue.instancePath || '(arguments)'} ${issue.message ?? 'is invalid'}`,
      );
      return `the arguments do not match the tool's input schema: ${issues.join('; ')}`;
    },
  };
}

let shared: Ajv2020 | null = null;

function compiler(): Ajv2020 {
  if (!shared) {
    // Schemas written for models use keywords ajv's strict mode rejects (`examples` is fine, vendor hints are not).
    shared = new Ajv2020({ allErrors: true, strict: false });
    addFormats(shared);
  }
  return shared;
}
