import { z } from "zod";
import { quotePrompt, type RunResult } from "../terminal/index.js";
import { defineTool, type ToolResult } from "./tool.js";

/** The longest a call may wait for one command, in seconds. */
const MAX_TIMEOUT_S = 600;

const parameters = z.object({
  command: z.string().min(1).describe("The shell command."),
  requires_approval: z
    .boolean()
    .describe(
      "true if the command changes something the user should confirm first: installs or removes packages, deletes or overwrites files, changes git history or remotes (push, reset --hard), changes system settings, or sends data over the network; false for reading, building, testing and other routine commands.",
    ),
  timeout: z
    .number()
    .positive()
    .max(MAX_TIMEOUT_S)
    .optional()
    .describe(
      `Seconds to wait for the end, up to ${MAX_TIMEOUT_S}, however quiet the command is (then it moves to the background). For long builds, installs and tests.`,
    ),
});

const description = `Run a shell command in the workspace root; returns its exit code and output (stdout and stderr in order).
- No input can be given (no stdin, no terminal): use non-interactive flags (--yes, --no-input) or pipe answers in; a command waiting at a prompt is killed. CI=1, no pager, no colours.
- Each call is a new shell: \`cd\` does not carry over; chain with && (\`cd app && npm test\`).
- A command still running after a few quiet seconds (30 s at most) moves to the background and keeps running; its later output is shown to you. For long silent builds or tests, give timeout.
- Long output is cut to its first and last lines, with the full log saved to a file you can read.
- A non-zero exit code is reported, not a tool error: read the output.

Example:
<execute_command>
<command>npm run build && npm test</command>
<requires_approval>false</requires_approval>
<timeout>300</timeout>
</execute_command>`;

export const executeCommandTool = defineTool({
  name: "execute_command",
  description,
  parameters,
  kind: "command",
  modes: ["act"],
  access: () => [{ type: "none" }],
  summarize: (input) => `$ ${shortCommand(input.command)}`,
  async execute(input, ctx) {
    if (ctx.signal.aborted) return { content: "Not run: the task was stopped.", isError: true };
    const result = await ctx.terminal.run({
      command: input.command,
      cwd: ctx.cwd,
      signal: ctx.signal,
      ...(input.timeout !== undefined ? { timeoutMs: input.timeout * 1000 } : {}),
      onOutput: (text) => ctx.emitOutput(text),
    });
    const formatted = formatResult(result);
    if (!result.started || result.sandboxNote === undefined || typeof formatted.content !== "string") return formatted;
    return { ...formatted, content: `${formatted.content}\n${result.sandboxNote}` };
  },
});

/**
 * What the model reads after its command. The command itself is not repeated: the model wrote it,
 * and every later request of the task would carry it twice.
 */
function formatResult(result: RunResult): ToolResult {
  if (!result.started) return { content: result.message, isError: true };
  const { outcome, output, id, pid } = result;
  const shown = output === "" ? "(no output)" : output;
  const after = seconds(result.elapsedMs);
  const stopHint = `It is stopped when the task ends; to stop it sooner, run \`kill -TERM -- -${pid}\` (its whole process group).`;

  switch (outcome.type) {
    case "exited": {
      const code =
        outcome.code !== null ? `Exit code: ${outcome.code}` : `Exit code: none (ended by signal ${outcome.signal ?? "unknown"})`;
      const lines = [code];
      if (outcome.lingering) {
        lines.push(
          `Processes it started are still running in the background as process #${id} (process group ${pid}); their later output will be shown to you. They are stopped when the task ends; to stop them sooner, run \`kill -TERM -- -${pid}\`.`,
        );
      }
      if (result.trailingPrompt !== undefined) {
        lines.push(
          `Note: the output ends with what looks like a prompt for input: '${quotePrompt(result.trailingPrompt)}'. Commands get no input here (stdin is empty), so it got no answer; pass the answer as a flag (e.g. --yes) or via a pipe/file.`,
        );
      }
      return { content: `${lines.join("\n")}\nOutput:\n${shown}` };
    }
    case "prompt":
      return {
        content: `The command stopped at what looks like a prompt for input: '${quotePrompt(outcome.line)}'. Commands cannot read input here; pass the answer as a flag (e.g. --yes) or via a pipe/file.\nOutput:\n${shown}`,
        isError: true,
      };
    case "background": {
      const why =
        outcome.reason === "timeout"
          ? "the time to wait ran out"
          : outcome.reason === "quiet"
            ? "it stopped printing"
            : "it printed nothing";
      return {
        content: `Still running in the background as process #${id} (pid ${pid}) after ${after} (${why}); its later output will be shown to you. ${stopHint}\nOutput so far:\n${shown}`,
      };
    }
    case "aborted":
      return {
        content: `Interrupted after ${after}: the task was stopped, so the command and everything it started were killed.\nOutput so far:\n${shown}`,
        isError: true,
      };
  }
}

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)}s` : `${Math.round(ms / 1000)}s`;
}

function shortCommand(command: string): string {
  const lines = command.trim().split("\n");
  const first = lines[0] ?? "";
  const more = lines.length > 1 ? " …" : "";
  return first.length > 100 ? `${first.slice(0, 99)}…` : `${first}${more}`;
}
