// The building block of the console contract: a channel is an input schema and an output schema. Each domain
// writes its map with channel() in its own file; channels.ts merges them.
import { z } from 'zod';
import { EnvironmentSchema } from './schemas/common';

export interface ChannelDef<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  input: I;
  output: O;
}

export function channel<I extends z.ZodType, O extends z.ZodType>(input: I, output: O): ChannelDef<I, O> {
  return { input, output };
}

/** The environment a console call acts in; the console's switch sends it, sandbox when absent. */
export const EnvInput = { environment: EnvironmentSchema.default('sandbox') };
/** An id of any resource in a channel input. */
export const IdInput = z.string().max(100);
