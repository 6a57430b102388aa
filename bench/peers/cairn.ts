/**
 * Cairn as the peers bench runs it: `cairn run --json` with reads, edits and every command
 * approved, default settings otherwise (sandbox, checkpoints, rules on), on the Anthropic wire. It
 * sends no side requests; CAIRN_HOME is the task's own home.
 */
import { textTurn, toolTurn, type Agent, type Place, type Step } from "./agent.js";

export function cairn(bin: string): Agent {
  return {
    name: "Cairn",
    command: (place: Place, prompt: string) => ({
      argv: [process.execPath, bin, "run", "--provider", "anthropic", "--base-url", place.url, "--cwd", place.ws, "--auto-approve", "read,edit,all-commands", "--json", prompt],
      env: { ...process.env, CAIRN_HOME: place.home, ANTHROPIC_API_KEY: "k", TMPDIR: place.tmp },
    }),
    isMainLoop: () => true,
    sideAnswer: () => textTurn("Done."),
    turn: (step: Step) => {
      switch (step.kind) {
        case "read":
          return toolTurn("read_file", { path: step.file });
        case "edit":
          return toolTurn("replace_in_file", { path: step.file, diff: `------- SEARCH\n${step.old}\n=======\n${step.new}\n+++++++ REPLACE` });
        case "command":
          return toolTurn("execute_command", { command: step.command, requires_approval: false });
        case "finish":
          return toolTurn("attempt_completion", { result: step.text });
      }
    },
  };
}
