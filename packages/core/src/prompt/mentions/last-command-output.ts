import type { Message } from "../../model/types.js";

/** The tool whose results are "the terminal" in a headless task. */
const commandTool = "execute_command";

/** `[execute_command for 'npm test'] Result:` — how the xml protocol labels a result in the conversation. */
const xmlResultLabel = new RegExp(`^\\[${commandTool}(?: for '[^\\n]*')?\\] Result:\\n`);

/**
 * `@terminal` without a terminal of the host's own: the output of the task's last command, as its
 * conversation recorded it (native tool results and xml result texts alike), so it holds across
 * runs and resumes. A call that failed or was denied ran nothing (a command's non-zero exit is a
 * result, not an error) and is passed over. Undefined when the task has run no command.
 */
export function lastCommandOutput(messages: readonly Message[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role !== "user") continue;
    for (let j = message.content.length - 1; j >= 0; j--) {
      const part = message.content[j]!;
      if (part.type === "tool-result" && part.toolName === commandTool && !part.isError) {
        return part.content.flatMap((c) => (c.type === "text" ? [c.text] : [])).join("\n");
      }
      if (part.type === "text" && xmlResultLabel.test(part.text)) return part.text.replace(xmlResultLabel, "");
    }
  }
  return undefined;
}
