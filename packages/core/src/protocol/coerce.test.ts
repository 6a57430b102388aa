import { z } from "zod";
import { describe, expect, it } from "vitest";
import { coerceXmlParams } from "./coerce.js";

const schema = z.object({
  path: z.string(),
  recursive: z.boolean().optional(),
  start_line: z.number().int().optional(),
  options: z.array(z.string()).optional(),
  flag: z.boolean().default(false),
});

describe("coerceXmlParams", () => {
  it("turns strings into the types the schema declares", () => {
    expect(coerceXmlParams(schema, { path: " src ", recursive: "true", start_line: "12", options: '["a", "b"]', flag: "False" })).toEqual({
      path: " src ",
      recursive: true,
      start_line: 12,
      options: ["a", "b"],
      flag: false,
    });
  });

  it("leaves values that do not convert as strings, so validation reports them", () => {
    const coerced = coerceXmlParams(schema, { path: "a", recursive: "maybe", start_line: "ten", options: "[not json" });
    expect(coerced).toEqual({ path: "a", recursive: "maybe", start_line: "ten", options: "[not json" });
    expect(schema.safeParse(coerced).success).toBe(false);
  });

  it("keeps unknown parameters as they are", () => {
    expect(coerceXmlParams(schema, { path: "a", task_progress: "- [x] step" })).toEqual({ path: "a", task_progress: "- [x] step" });
  });
});
