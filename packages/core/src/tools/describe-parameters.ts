import { z } from "zod";
import type { AnyTool } from "./tool.js";

type JsonSchema = Record<string, unknown>;

/** Bounds that say nothing to a model: zod's int() is limited to JavaScript's safe integers. */
const noiseBounds = new Set([Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]);

/**
 * Bounds a brief offer leaves out with the descriptions: validation still holds the call to them,
 * and a call outside them gets the full description in its error (brief-tools.ts).
 */
const bounds = new Set(["minLength", "maxLength", "minItems", "maxItems", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]);

function withoutNoise(value: unknown, dropDescriptions: boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => withoutNoise(v, dropDescriptions));
  if (value === null || typeof value !== "object") return value;
  const out: JsonSchema = {};
  for (const [key, v] of Object.entries(value)) {
    if (key === "$schema") continue;
    if (dropDescriptions && key === "description" && typeof v === "string") continue;
    if (dropDescriptions && bounds.has(key) && typeof v === "number") continue;
    if ((key === "maximum" || key === "minimum") && typeof v === "number" && noiseBounds.has(v)) continue;
    out[key] = key === "properties" && v && typeof v === "object" ? mapValues(v as JsonSchema, dropDescriptions) : withoutNoise(v, dropDescriptions);
  }
  return out;
}

// Under `properties` the keys are parameter names (a parameter may be called "description").
function mapValues(properties: JsonSchema, dropDescriptions: boolean): JsonSchema {
  return Object.fromEntries(Object.entries(properties).map(([name, v]) => [name, withoutNoise(v, dropDescriptions)]));
}

/** The JSON schema of a tool's input, as the native protocol sends it. */
export function parameterSchema(tool: AnyTool): JsonSchema {
  const schema = tool.inputJsonSchema ?? (z.toJSONSchema(tool.parameters, { io: "input" }) as JsonSchema);
  return withoutNoise(schema, false) as JsonSchema;
}

/** The same schema with every description and bound left out: names, types, enums and what is required. */
export function bareParameterSchema(tool: AnyTool): JsonSchema {
  return withoutNoise(parameterSchema(tool), true) as JsonSchema;
}

/** One line per parameter, "- name: (required) what it is", for prompts and error messages. */
export function parameterLines(tool: AnyTool): string {
  type Prop = { description?: string; enum?: unknown[]; type?: unknown; items?: { type?: unknown } };
  const schema = parameterSchema(tool) as { properties?: Record<string, Prop>; required?: string[] };
  const required = new Set(schema.required ?? []);
  // A brief offer has no descriptions; its choices, and that a list is written as JSON, still tell the model what to write.
  const about = (prop: Prop) => prop.description ?? (prop.enum ? `one of: ${prop.enum.join(", ")}` : prop.type === "array" ? `a JSON array${typeof prop.items?.type === "string" ? ` of ${prop.items.type}s` : ""}` : "");
  return Object.entries(schema.properties ?? {})
    .map(([name, prop]) => `- ${name}: (${required.has(name) ? "required" : "optional"}) ${about(prop)}`.trimEnd())
    .join("\n");
}
