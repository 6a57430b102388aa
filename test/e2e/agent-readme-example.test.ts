import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { expect, it } from "vitest";
import { startScriptedModelServer } from "../support/scripted-model-server.js";
import { useE2eFixture } from "../support/e2e-fixture.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The README's createAgent example, exactly as a reader copies it (only the package name points at the built package). */
function readmeExample(): string {
  const readme = readFileSync(path.join(root, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("### The agent API: `createAgent`"));
  const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error("README.md has no ts block under 'The agent API: createAgent'");
  return block.replace('from "@cairn/core"', `from ${JSON.stringify(pathToFileURL(path.join(root, "packages/core/dist/index.js")).href)}`);
}

/** Runs `file` with tsx (a .ts script) or node (a .js one). */
function runScript(file: string, cwd: string, env: Record<string, string>, args: string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = file.endsWith(".mts") ? spawn(path.join(root, "node_modules/.bin/tsx"), [file, ...args], { cwd, env }) : spawn(process.execPath, [file, ...args], { cwd, env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

function typeCheck(dir: string, code: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  writeFileSync(path.join(dir, "example.mts"), code);
  const tsconfig = {
    compilerOptions: {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      target: "es2022",
      module: "nodenext",
      moduleResolution: "nodenext",
      types: ["node"],
      typeRoots: [path.join(root, "node_modules/@types")],
      paths: { "@cairn/core": [path.join(root, "packages/core/dist/index.d.ts")] },
    },
    files: ["example.mts"],
  };
  writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify(tsconfig));
  return runScript(path.join(root, "node_modules/typescript/bin/tsc"), dir, { PATH: process.env.PATH ?? "" }, ["-p", "tsconfig.json"]);
}

const fx = useE2eFixture();

it("the README's createAgent example type-checks against the built package", async () => {
  const readme = readFileSync(path.join(root, "README.md"), "utf8");
  const block = /```ts\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf("### The agent API: `createAgent`")))![1]!;
  const checked = await typeCheck(fx.home.dir, block);
  expect(checked.stdout + checked.stderr).toBe("");
  expect(checked.code).toBe(0);
}, 60_000);

it("the README's createAgent example runs: hooks, host approval, snapshot, restore in a new agent and continue", async () => {
  fx.server = await startScriptedModelServer({
    turns: [
      { content: [{ type: "tool_use", name: "write_to_file", input: { path: "hello.txt", content: "hi\n" } }] },
      { content: [{ type: "tool_use", name: "execute_command", input: { command: "cat hello.txt", requires_approval: false } }] },
      { content: [{ type: "tool_use", name: "execute_command", input: { command: "rm hello.txt", requires_approval: true } }] },
      { content: [{ type: "tool_use", name: "attempt_completion", input: { result: "hello.txt says hi" } }] },
      { content: [{ type: "tool_use", name: "write_to_file", input: { path: "hello.txt", content: "hi\nbye\n" } }] },
      { content: [{ type: "tool_use", name: "attempt_completion", input: { result: "Added bye" } }] },
    ],
  });
  const script = path.join(fx.home.dir, "example.mts");
  writeFileSync(script, readmeExample());
  const run = await runScript(script, fx.workspace.dir, {
    PATH: process.env.PATH ?? "",
    HOME: fx.home.dir,
    CAIRN_HOME: fx.home.dir,
    ANTHROPIC_API_KEY: "sk-ant-test",
    CAIRN_BASE_URL: fx.server.url,
  });
  expect(run.code, run.stderr).toBe(0);
  const lines = run.stdout.trim().split("\n");
  expect(lines).toEqual([
    "-> write hello.txt",
    "-> $ cat hello.txt",
    "-> $ rm hello.txt",
    "-> complete: hello.txt says hi",
    "run ended: success, 4 turns",
    "hello.txt says hi",
    // The second agent has the same hooks but no subscriber.
    "run ended: success, 2 turns",
    "Added bye 6",
  ]);
  // The beforeTool hook kept the file; the command the host approved ran and its output reached the model.
  expect(readFileSync(path.join(fx.workspace.dir, "hello.txt"), "utf8")).toBe("hi\nbye\n");
  expect(JSON.stringify(fx.server.requests[2]!.body)).toContain("hi");
  expect(JSON.stringify(fx.server.requests[3]!.body)).toContain("nothing is deleted here");
  // The restored agent went on with the same conversation: its request holds the first run's messages.
  const resumed = JSON.stringify(fx.server.requests[4]!.body);
  expect(resumed).toContain("Write hello.txt saying hi, then show it");
  expect(resumed).toContain("Now add a second line: bye");
  expect(existsSync(path.join(fx.home.dir, "tasks"))).toBe(true);
}, 60_000);
