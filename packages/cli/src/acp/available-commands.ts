import path from "node:path";
import type { AvailableCommand } from "@agentclientprotocol/sdk";
import { builtinSlashCommands, listWorkflows } from "@cairn/core";

/** The slash commands a prompt may start with: the task's own (/compact, /newtask, ...) and the workspace's workflows. */
export function availableCommands(cwd: string, home: string): AvailableCommand[] {
  const builtin = Object.entries(builtinSlashCommands).map(([name, description]) => ({ name, description, input: { hint: "optional instructions" } }));
  const workflows = listWorkflows(cwd, home)
    .filter((w) => !(w.name in builtinSlashCommands))
    .map((w) => ({ name: w.name, description: w.description ?? `workflow (${path.relative(cwd, w.file)})`, input: { hint: "arguments" } }));
  return [...builtin, ...workflows];
}
