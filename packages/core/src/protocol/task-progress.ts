/**
 * `task_progress`: the focus chain's checklist, which every tool accepts. It belongs to the loop,
 * not to the tool, so the protocols take it out of a call's input before the tool validates it.
 */
export const taskProgressParam = "task_progress";

/** The input without task_progress, and its value when it was text. */
export function takeTaskProgress(input: Record<string, unknown>): { input: Record<string, unknown>; taskProgress?: string } {
  if (!Object.hasOwn(input, taskProgressParam)) return { input };
  const { [taskProgressParam]: value, ...rest } = input;
  return typeof value === "string" && value.trim() !== "" ? { input: rest, taskProgress: value } : { input: rest };
}

/** A tool's JSON schema with task_progress added (native function calling); the system prompt says what it is. */
export function withTaskProgress(schema: Record<string, unknown>): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  return { ...schema, properties: { ...properties, [taskProgressParam]: { type: "string" } } };
}
