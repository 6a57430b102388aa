import type { ParsedCall } from "./types.js";
import { thousands } from "../text/thousands.js";

/**
 * Limits on the shape of a tool call's arguments, checked where model output enters (the
 * protocols' parsers). JSON.parse builds any depth without recursion, but nearly everything after
 * it recurses: zod, structuredClone, JSON.stringify for the journal, the event stream and the
 * next request. Arguments 100,000 levels deep overflowed the stack there and killed the host
 * (cairn run, and with it every ACP and web session of the process). No tool's parameters come
 * near these limits; a model that sends such a shape is told, and the task goes on.
 */
export const argumentLimits = {
  /** Levels of objects and arrays; the call's own argument object is level 1. */
  depth: 64,
  /** Objects, arrays and values, all counted: bounds the work of validating and recording one call. */
  values: 1_000_000,
  /** Characters of the arguments' text (JSON, or the xml parameters together); a 10 MB file written in one call fits. */
  chars: 64 * 1024 * 1024,
} as const;

/**
 * Why these arguments cannot be taken as they are (one line for the model), or undefined.
 * Walks with an explicit stack, never recursion, and stops at the first limit passed.
 */
export function argumentShapeProblem(name: string, input: unknown, limits = argumentLimits): string | undefined {
  const tooMany = `The arguments of ${name} hold more than ${thousands(limits.values)} values, which Cairn does not accept; send smaller arguments.`;
  const stack: Array<{ value: object; depth: number }> = [];
  if (typeof input === "object" && input !== null) stack.push({ value: input, depth: 1 });
  let values = 1;
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    if (depth > limits.depth) return `The arguments of ${name} are nested deeper than ${limits.depth} levels, which Cairn does not accept; send flat arguments.`;
    for (const child of Object.values(value)) {
      if (++values > limits.values) return tooMany;
      if (typeof child === "object" && child !== null) stack.push({ value: child, depth: depth + 1 });
    }
  }
  return undefined;
}

/** A problem with the size of the arguments' text, before it is parsed or coerced. */
export function argumentSizeProblem(name: string, chars: number, limits = argumentLimits): string | undefined {
  if (chars <= limits.chars) return undefined;
  return `The arguments of ${name} are ${thousands(chars)} characters, more than the ${thousands(limits.chars)} Cairn accepts in one call; send smaller arguments (write a large file in parts).`;
}

/**
 * The call as the loop may take it: one whose arguments pass a limit keeps its name and id but
 * none of its input, and carries the reason as its input error, so it fails as a malformed call
 * (a mistake) and nothing downstream ever holds the hostile shape. `chars`: the length of the
 * arguments' text as the model wrote it.
 */
export function boundedCall(call: ParsedCall, chars: number): ParsedCall {
  const problem = argumentSizeProblem(call.name, chars) ?? argumentShapeProblem(call.name, call.input);
  if (problem === undefined) return call;
  return { ...call, input: {}, inputError: problem };
}

/** The characters of an xml call's parameters together, its arguments' text. */
export function paramChars(params: Record<string, unknown>): number {
  let chars = 0;
  for (const value of Object.values(params)) chars += typeof value === "string" ? value.length : 0;
  return chars;
}
