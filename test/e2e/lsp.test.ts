import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, repoRoot, runCairn } from "../support/cairn-cli.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";

/**
 * Edits that check themselves: the real language servers Cairn ships (typescript-language-server
 * with TypeScript, pyright) run for the real CLI, and the errors an edit introduced reach the model
 * in the next request. Nothing else about them is faked: only the model is scripted.
 */

const fx = useE2eFixture();

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const done = call("attempt_completion", { result: "Done." });

/** What the model got back for the calls of its last turn: the last message of a request. */
function lastResults(index: number): string {
  const body = fx.server.requests[index]!.body as { messages: unknown[] };
  return JSON.stringify(body.messages.at(-1));
}

/** Real servers on a busy machine may take long to load a project the first time: the wait is generous here (the default is 30 s). */
const patient = { lsp: { startWaitMs: 240_000, waitMs: 60_000 } };

async function run(turns: ScriptedTurn[], settings: Record<string, unknown> = patient, prompt = "Work on the code.", extraArgs: string[] = []) {
  fx.server = await startScriptedModelServer({ turns });
  writeFileSync(path.join(fx.home.dir, "settings.json"), JSON.stringify(settings));
  const result = await runCairn(
    ["run", ...extraArgs, "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", fx.server.url, "--auto-approve", "read,edit", "--cwd", fx.workspace.dir, "--json", "--", prompt],
    { env: cleanEnv({ ANTHROPIC_API_KEY: "sk-ant-test", CAIRN_HOME: fx.home.dir }), timeoutMs: 600_000 },
  );
  expect(result.code, result.stderr).toBe(0);
  return result;
}

/** Processes still running in the workspace (a language server left behind would be one); an exited one waiting to be reaped does not run. */
function runningIn(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cwd = readlinkSync(`/proc/${entry}/cwd`);
      if (cwd !== dir && !cwd.startsWith(`${dir}/`)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
      if (state === "Z" || state === "X") continue;
      found.push(`${entry} (${state}): ${readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ")}`);
    } catch {
      // Gone, or not ours to read.
    }
  }
  return found;
}

/**
 * What still runs in the workspace once cairn has exited. A process the kernel is still tearing
 * down (the sandbox's namespace ends with its first process) may be seen for a moment: the check
 * waits for the list to empty, and only what is still running after 10 s is left behind.
 */
async function processesIn(dir: string): Promise<string[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = runningIn(dir);
    if (found.length === 0 || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const notices = (events: Array<Record<string, unknown>>) => events.filter((e) => e.type === "system" && e.subtype === "notice").map((e) => String(e.message));

describe("language servers check every edit (real servers, real CLI)", () => {
  it("TypeScript: a bad edit's error reaches the next request, a pre-existing one never does, a fix reports nothing", async () => {
    const ws = fx.workspace.dir;
    mkdirSync(path.join(ws, "src"));
    writeFileSync(path.join(ws, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, target: "es2022", module: "nodenext", noEmit: true } }));
    writeFileSync(path.join(ws, "src/double.ts"), "export function double(n: number): number {\n  return n * 2;\n}\n");
    // Already wrong before the task: never reported as the edit's.
    writeFileSync(path.join(ws, "src/main.ts"), 'import { double } from "./double.js";\n\nexport const four: number = double(2);\nexport const label: string = 42;\n');

    const result = await run([
      call("read_file", { path: "src/main.ts" }),
      call("replace_in_file", { path: "src/main.ts", diff: '------- SEARCH\nexport const four: number = double(2);\n=======\nexport const four: number = double("two");\n+++++++ REPLACE' }),
      call("replace_in_file", { path: "src/main.ts", diff: '------- SEARCH\nexport const four: number = double("two");\n=======\nexport const four: number = double(2);\n+++++++ REPLACE' }),
      call("write_to_file", { path: "src/extra.ts", content: 'import { double } from "./double.js";\n\nexport const six = double(3);\nexport const bad: number = double("six");\n' }),
      done,
    ]);

    const bad = lastResults(2);
    expect(bad).toContain("<new_problems");
    expect(bad).toContain("TS2345");
    expect(bad).toContain("Argument of type 'string' is not assignable to parameter of type 'number'.");
    expect(bad).toContain("Line 3:");
    // The error the file already had is not the edit's.
    expect(bad).not.toContain("TS2322");
    // The fix introduced nothing: nothing is said.
    expect(lastResults(3)).not.toContain("new_problems");
    // A new file: every error in it is new.
    expect(lastResults(4)).toContain('<new_problems path=\\"src/extra.ts\\"');
    expect(lastResults(4)).toContain("Line 4:");

    // Hosts get the same problems as an event under the edit's call (--json carries it).
    const diagnostics = result.events.filter((e) => e.type === "diagnostics");
    expect(diagnostics.map((e) => e.path)).toEqual(["src/main.ts", "src/extra.ts"]);
    expect(diagnostics[0]).toMatchObject({ server: "typescript", problems: [{ line: 3, severity: "error", code: "TS2345" }] });
    const badCall = result.events.find((e) => e.type === "tool_call" && (e.input as { diff?: string }).diff?.includes('double("two")') === true && (e.input as { diff: string }).diff.indexOf('double("two")') > (e.input as { diff: string }).diff.indexOf("======="));
    expect(diagnostics[0]!.tool_use_id).toBe(badCall?.tool_use_id);
    expect(notices(result.events).filter((n) => n.includes("language server"))).toEqual([]);
    // The servers stopped with the task.
    expect(await processesIn(ws)).toEqual([]);
    // The stored task, diagnostics events and all, reads back.
    const sessionId = String(result.events.find((e) => e.type === "system" && e.subtype === "init")?.session_id);
    const shown = await runCairn(["show", sessionId], { env: cleanEnv({ CAIRN_HOME: fx.home.dir }) });
    expect(shown.code, shown.stderr).toBe(0);
  }, 900_000);

  it("cairn run's progress says under the edit how many problems it introduced, and the first", async () => {
    const ws = fx.workspace.dir;
    writeFileSync(path.join(ws, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, noEmit: true } }));
    writeFileSync(path.join(ws, "double.ts"), "export function double(n: number): number {\n  return n * 2;\n}\n");
    fx.server = await startScriptedModelServer({
      turns: [call("write_to_file", { path: "main.ts", content: 'import { double } from "./double";\n\nexport const four: number = double("two");\n' }), done],
    });
    writeFileSync(path.join(fx.home.dir, "settings.json"), JSON.stringify(patient));
    const result = await runCairn(
      ["run", "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", fx.server.url, "--auto-approve", "read,edit", "--cwd", ws, "--", "Work on the code."],
      { env: cleanEnv({ ANTHROPIC_API_KEY: "sk-ant-test", CAIRN_HOME: fx.home.dir }), timeoutMs: 600_000 },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^ {2}1 new problem: main\.ts:3:\d+ TS2345 Argument of type 'string' is not assignable to parameter of type 'number'\.$/m);
    expect(await processesIn(ws)).toEqual([]);
  }, 900_000);

  it("Python: pyright reports the edit's new error and not the file's old one; a fix reports nothing", async () => {
    const ws = fx.workspace.dir;
    const before = 'def greet(name: str) -> str:\n    return "Hello, " + name\n\n\nold: int = "already wrong"\ncount: int = 1\n';
    writeFileSync(path.join(ws, "main.py"), before);

    const result = await run([
      call("write_to_file", { path: "main.py", content: before.replace("count: int = 1", 'count: int = greet("bob")') }),
      call("write_to_file", { path: "main.py", content: before }),
      done,
    ]);

    const bad = lastResults(1);
    expect(bad).toContain("<new_problems");
    expect(bad).toContain("reportAssignmentType");
    expect(bad).toContain("Line 6:");
    expect(bad).not.toContain("Line 5:");
    expect(lastResults(2)).not.toContain("new_problems");
    const diagnostics = result.events.filter((e) => e.type === "diagnostics");
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ path: "main.py", server: "pyright", problems: [{ line: 6, severity: "error" }] });
    expect(await processesIn(ws)).toEqual([]);
  }, 900_000);

  it("a server that crashes costs the task nothing: the edits land, one notice, no problems", async () => {
    const ws = fx.workspace.dir;
    writeFileSync(path.join(ws, "a.ts"), "export const a = 1;\n");
    const result = await run(
      [
        call("write_to_file", { path: "a.ts", content: 'export const a: number = "x";\n' }),
        call("write_to_file", { path: "b.ts", content: 'export const b: number = "y";\n' }),
        done,
      ],
      { lsp: { servers: { typescript: { command: [process.execPath, "-e", "process.exit(3)"] } } } },
    );
    expect(readFileSync(path.join(ws, "b.ts"), "utf8")).toBe('export const b: number = "y";\n');
    expect(lastResults(1)).not.toContain("new_problems");
    expect(lastResults(2)).not.toContain("new_problems");
    const said = notices(result.events).filter((n) => n.includes("language server"));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^typescript language server stopped \(it exited/);
    expect(result.events.at(-1)).toMatchObject({ type: "result", subtype: "success" });
  }, 900_000);

  it("a server that never answers costs the task one bounded wait and one notice, and is stopped", async () => {
    const ws = fx.workspace.dir;
    const result = await run(
      [
        call("write_to_file", { path: "a.py", content: "x: int = 'a'\n" }),
        call("write_to_file", { path: "b.py", content: "y: int = 'b'\n" }),
        done,
      ],
      { lsp: { startWaitMs: 2000, servers: { pyright: { command: [process.execPath, "-e", "setInterval(() => {}, 1000)"] } } } },
    );
    expect(readFileSync(path.join(ws, "b.py"), "utf8")).toBe("y: int = 'b'\n");
    expect(lastResults(1)).not.toContain("new_problems");
    expect(lastResults(2)).not.toContain("new_problems");
    const said = notices(result.events).filter((n) => n.includes("language server"));
    expect(said).toEqual(["pyright language server did not answer within 2 s and was stopped; edits are not checked by it in this task."]);
    expect(await processesIn(ws)).toEqual([]);
  }, 900_000);

  it("@problems without a configured checker asks the language servers about the workspace's recently changed files", async () => {
    const ws = fx.workspace.dir;
    mkdirSync(path.join(ws, "src"));
    writeFileSync(path.join(ws, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, noEmit: true } }));
    writeFileSync(path.join(ws, "src/ok.ts"), "export const ok = 1;\n");
    writeFileSync(path.join(ws, "src/wrong.ts"), "export const label: string = 42;\n");
    writeFileSync(path.join(ws, "script.py"), "count: int = 'many'\n");
    await run([done], patient, "Fix @problems please.");
    const first = JSON.stringify(fx.server.requests[0]!.body);
    const block = first.slice(first.indexOf("<workspace_diagnostics"), first.indexOf("</workspace_diagnostics>"));
    expect(block).toContain('source=\\"language servers\\" files_checked=\\"3\\"');
    expect(block).toContain("src/wrong.ts");
    expect(block).toContain("TS2322");
    expect(block).toContain("script.py");
    expect(block).toContain("reportAssignmentType");
    expect(block).not.toContain("src/ok.ts");
    expect(await processesIn(ws)).toEqual([]);
  }, 900_000);

  it('"lsp": false turns them off: a bad edit is written and nothing is checked', async () => {
    const ws = fx.workspace.dir;
    writeFileSync(path.join(ws, "a.ts"), "export const a = 1;\n");
    const result = await run([call("write_to_file", { path: "a.ts", content: 'export const a: number = "x";\n' }), done], { lsp: false });
    expect(lastResults(1)).not.toContain("new_problems");
    expect(result.events.filter((e) => e.type === "diagnostics")).toEqual([]);
    expect(await processesIn(ws)).toEqual([]);
  }, 900_000);
});

describe("a language server runs the workspace's code only in the sandbox", () => {
  /** A workspace whose own TypeScript leaves a mark when it runs, then works as TypeScript does. */
  function workspaceWithOwnTypescript(): string {
    const ws = fx.workspace.dir;
    const own = path.join(ws, "node_modules", "typescript");
    mkdirSync(path.join(own, "lib"), { recursive: true });
    writeFileSync(path.join(own, "package.json"), JSON.stringify({ name: "typescript", version: "6.0.3", main: "./lib/typescript.js" }));
    writeFileSync(
      path.join(own, "lib", "tsserver.js"),
      `require("fs").writeFileSync(${JSON.stringify(path.join(ws, "PWNED"))}, "the workspace's tsserver ran");\nrequire(${JSON.stringify(path.join(repoRoot, "node_modules/typescript/lib/tsserver.js"))});\n`,
    );
    writeFileSync(path.join(ws, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, noEmit: true } }));
    writeFileSync(path.join(ws, "a.ts"), "export const a = 1;\n");
    return ws;
  }
  const turns = () => [call("write_to_file", { path: "a.ts", content: 'export const a: number = "x";\n' }), done];

  it("--sandbox off: Cairn's own TypeScript checks the edit; the workspace's never runs", async () => {
    const ws = workspaceWithOwnTypescript();
    await run(turns(), patient, "Work on the code.", ["--sandbox", "off"]);
    expect(lastResults(1)).toContain("TS2322");
    expect(existsSync(path.join(ws, "PWNED"))).toBe(false);
    expect(await processesIn(ws)).toEqual([]);
  }, 900_000);

  it("in the sandbox (the positive control): the workspace's own TypeScript checks the edit", async () => {
    const ws = workspaceWithOwnTypescript();
    await run(turns());
    expect(lastResults(1)).toContain("TS2322");
    expect(readFileSync(path.join(ws, "PWNED"), "utf8")).toBe("the workspace's tsserver ran");
    expect(await processesIn(ws)).toEqual([]);
  }, 900_000);
});
