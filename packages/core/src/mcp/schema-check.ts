import type { JsonSchemaType, JsonSchemaValidator } from "@modelcontextprotocol/sdk/validation";
import type { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";

/** What the model learns when its arguments do not fit a tool's input schema. */
export type SchemaCheck = { ok: true } | { ok: false; problems: string[] };

// Ajv (via the SDK, which already depends on it) with allErrors, so the model sees every problem at
// once; loaded with the first check, as the SDK is with the first connection.
let provider: Promise<AjvJsonSchemaValidator> | undefined;
const compiled = new WeakMap<object, JsonSchemaValidator<unknown> | null>();

/**
 * Checks arguments against an MCP tool's `inputSchema` before the call reaches the server.
 * A schema Ajv cannot compile is not held against the model: the server gets the call and judges.
 */
export async function checkArguments(schema: Record<string, unknown>, args: unknown): Promise<SchemaCheck> {
  let validate = compiled.get(schema);
  if (validate === undefined) {
    provider ??= import("@modelcontextprotocol/sdk/validation/ajv").then((ajv) => new ajv.AjvJsonSchemaValidator());
    const validator = await provider;
    try {
      validate = validator.getValidator<unknown>(schema as JsonSchemaType);
    } catch {
      validate = null;
    }
    compiled.set(schema, validate);
  }
  if (validate === null) return { ok: true };
  const result = validate(args);
  if (result.valid) return { ok: true };
  return { ok: false, problems: result.errorMessage.split(/, (?=data\b)/).map(readable) };
}

/** Ajv says "data/path/0 must be string"; the model wrote `arguments.path[0]`. */
function readable(message: string): string {
  return message.replace(/^data(\S*)/, (_m, pointer: string) => {
    const parts = pointer.split("/").filter((p) => p !== "");
    return parts.reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : `${acc}.${part}`), "arguments");
  });
}
