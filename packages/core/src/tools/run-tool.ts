import type { z } from "zod";
import { fullDescription } from "./brief-tools.js";
import type { AnyTool, ToolContext, ToolResult } from "./tool.js";

/** The most text one result may put into the next request. */
export const maxResultChars = 100_000;

export type ValidInput = { ok: true; input: Record<string, unknown> } | { ok: false; message: string };

function describeIssues(tool: AnyTool, error: z.ZodError): string {
  const lines = error.issues.map((issue) => {
    const where = issue.path.length > 0 ? issue.path.join(".") : "input";
    const missing = issue.code === "invalid_type" && /received undefined/.test(issue.message);
    return missing ? `- missing required parameter '${where}'` : `- ${where}: ${issue.message}`;
  });
  const expected = Object.keys(tool.parameters.shape).join(", ");
  const message = `Invalid parameters for ${tool.name}:\n${lines.join("\n")}\nIts parameters are: ${expected}. Call it again with valid parameters.`;
  // A rarely used tool may have been called from its one-line brief: give what it lacked.
  return tool.brief === undefined ? message : `${message}\n\n${fullDescription(tool)}`;
}

export function validateInput(tool: AnyTool, input: Record<string, unknown>): ValidInput {
  const parsed = tool.parameters.safeParse(input);
  if (parsed.success) return { ok: true, input: parsed.data as Record<string, unknown> };
  return { ok: false, message: describeIssues(tool, parsed.error) };
}

/** Keeps the head and the tail of an over-long text, saying how much was cut. */
export function boundText(text: string, limit = maxResultChars): string {
  if (text.length <= limit) return text;
  const head = text.slice(0, Math.floor(limit * 0.6));
  const tail = text.slice(text.length - Math.floor(limit * 0.4));
  const cut = text.length - head.length - tail.length;
  return `${head}\n\n[... ${cut} characters cut from the middle of this output ...]\n\n${tail}`;
}

/**
 * Runs one validated call. The one wrapper every tool goes through: any throw becomes an error
 * result the model can act on, and output is bounded.
 */
export async function runTool(tool: AnyTool, input: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
  let result: ToolResult;
  try {
    result = await tool.execute(input, ctx);
  } catch (error) {
    if (ctx.signal.aborted) return { content: `${tool.name} was interrupted because the task was stopped.`, isError: true };
    const message = error instanceof Error ? error.message : String(error);
    return { content: `${tool.name} failed: ${message}`, isError: true };
  }
  if (typeof result.content === "string") return { ...result, content: boundText(result.content) };
  return { ...result, content: result.content.map((p) => (p.type === "text" ? { ...p, text: boundText(p.text) } : p)) };
}
