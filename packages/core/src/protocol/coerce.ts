import type { z } from "zod";

type Def = { type: string; innerType?: z.ZodType };

function baseType(schema: z.ZodType | undefined): string | undefined {
  let current = schema;
  for (let depth = 0; current && depth < 8; depth++) {
    const def = (current as unknown as { _zod: { def: Def } })._zod.def;
    if ((def.type === "optional" || def.type === "nullable" || def.type === "default") && def.innerType) {
      current = def.innerType;
      continue;
    }
    return def.type;
  }
  return undefined;
}

/**
 * The xml protocol delivers every parameter as a string. Turns them into the types the tool's
 * schema declares (booleans, numbers, JSON arrays and objects), leaving anything that does not
 * convert as it was so that validation reports it to the model.
 */
export function coerceXmlParams(schema: z.ZodObject, params: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(params)) {
    const type = baseType(schema.shape[key] as z.ZodType | undefined);
    out[key] = coerce(type, raw);
  }
  return out;
}

function coerce(type: string | undefined, raw: string): unknown {
  const value = raw.trim();
  switch (type) {
    case "boolean":
      if (/^(true|yes|1)$/i.test(value)) return true;
      if (/^(false|no|0)$/i.test(value)) return false;
      return raw;
    case "number":
    case "int":
      return value !== "" && Number.isFinite(Number(value)) ? Number(value) : raw;
    case "array":
    case "object":
    case "record":
      try {
        return JSON.parse(value) as unknown;
      } catch {
        return raw;
      }
    default:
      return raw;
  }
}
