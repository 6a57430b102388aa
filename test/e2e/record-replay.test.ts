import { cpSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { cleanEnv, runCairn, tempDir } from "../support/cairn-cli.js";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";

// cairn run --record writes a run's model exchanges; cairn replay runs the task again from them, with
// the model server gone: the tools really run, so the files come out the same, and a recording that
// no longer fits the run says where in one line.

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });

const turns: ScriptedTurn[] = [
  { content: [{ type: "text", text: "I write the notes first." }, { type: "tool_use", name: "write_to_file", input: { path: "notes/plan.md", content: "# Plan\n- build ✓\n" } }] },
  call("execute_command", { command: "mkdir -p out && printf 'built from %s\\n' \"$(head -n 1 notes/plan.md)\" > out/build.log && cat out/build.log README.txt", requires_approval: false }),
  call("attempt_completion", { result: "Wrote the plan and the build log." }),
];

let server: ScriptedModelServer | undefined;
let root: ReturnType<typeof tempDir>;
let home: ReturnType<typeof tempDir>;

beforeEach(() => {
  root = tempDir("record");
  home = tempDir("home");
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  root.cleanup();
  home.cleanup();
});

/** A workspace with the same starting file, so A and B begin alike. */
function workspace(name: string): string {
  const dir = path.join(root.dir, name);
  cpSync(path.join(root.dir, "seed"), dir, { recursive: true });
  return dir;
}

/** Every file under `dir` and its content, .cairn and .git left out. */
function files(dir: string, under = ""): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(path.join(dir, under))) {
    if (name === ".cairn" || name === ".git") continue;
    const rel = path.join(under, name);
    if (statSync(path.join(dir, rel)).isDirectory()) Object.assign(out, files(dir, rel));
    else out[rel] = readFileSync(path.join(dir, rel), "utf8");
  }
  return out;
}

const deployToken = `ghp_${"a1B2c3D4e5".repeat(4)}`;

const env = () => cleanEnv({ CAIRN_HOME: home.dir, ANTHROPIC_API_KEY: "sk-ant-secret-do-not-record" });

it("a recorded run replays into a fresh folder with the model server stopped, and a tampered recording says where it diverged", async () => {
  mkdirSync(path.join(root.dir, "seed"));
  // A token in the workspace reaches the model in the command's output; the recording leaves it out.
  writeFileSync(path.join(root.dir, "seed", "README.txt"), `A project to plan and build. Deploy with ${deployToken}.\n`);
  const a = workspace("a");
  const recording = path.join(root.dir, "run.jsonl");
  server = await startScriptedModelServer({ turns });
  const recorded = await runCairn(
    ["run", "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", server.url, "--yolo", "--cwd", a, "--record", recording, "--", "Write the plan and build it"],
    { env: env(), timeoutMs: 60_000 },
  );
  expect(recorded.code, recorded.stderr).toBe(0);
  expect(server.requests).toHaveLength(3);
  expect(readFileSync(path.join(a, "out/build.log"), "utf8")).toBe("built from # Plan\n");

  const text = readFileSync(recording, "utf8");
  expect(text).not.toContain("sk-ant-secret-do-not-record");
  expect(text).not.toContain(deployToken);
  expect(text).toContain("Deploy with [REDACTED:github-token]");
  const lines = text.trim().split("\n").map((l) => JSON.parse(l) as { type: string; step?: number; request?: { headers: Record<string, string> } });
  expect(lines.map((l) => l.type)).toEqual(["recording", "message", "session", "exchange", "exchange", "exchange"]);
  expect(lines[3]!.request!.headers["x-api-key"]).toBe("[redacted]");

  await server.close();
  server = undefined;

  const b = workspace("b");
  const replayed = await runCairn(["replay", recording, "--yolo", "--cwd", b], { env: cleanEnv({ CAIRN_HOME: home.dir }), timeoutMs: 60_000 });
  expect(replayed.code, replayed.stderr).toBe(0);
  expect(replayed.stdout).toContain("Wrote the plan and the build log.");
  expect(replayed.stderr).toContain("the replay went as recorded (3 model replies)");
  expect(files(b)).toEqual(files(a));

  // The command's reply is gone: the run's second request carries the write's result where the
  // recording's next one (step 3) carries the command's too.
  const tampered = path.join(root.dir, "tampered.jsonl");
  writeFileSync(tampered, text.trim().split("\n").filter((l) => JSON.parse(l).step !== 2).join("\n") + "\n");
  const c = workspace("c");
  const diverged = await runCairn(["replay", tampered, "--yolo", "--cwd", c], { env: cleanEnv({ CAIRN_HOME: home.dir }), timeoutMs: 60_000 });
  expect(diverged.code).toBe(1);
  const said = diverged.stderr.split("\n").filter((l) => l.includes("diverged"));
  expect(said, diverged.stderr).toHaveLength(1);
  expect(said[0]).toMatch(/^✗ replay diverged at step 2: the run sent back 1 result where the recording has 2 \(recorded step 3\)\.$/);
  expect(files(c)["out/build.log"]).toBeUndefined();

  // The last reply gone: the run asks for one more than the recording holds.
  const short = path.join(root.dir, "short.jsonl");
  writeFileSync(short, text.trim().split("\n").filter((l) => JSON.parse(l).step !== 3).join("\n") + "\n");
  const d = workspace("d");
  const ran = await runCairn(["replay", short, "--yolo", "--cwd", d], { env: cleanEnv({ CAIRN_HOME: home.dir }), timeoutMs: 60_000 });
  expect(ran.code).toBe(1);
  expect(ran.stderr.split("\n").filter((l) => l.includes("diverged"))).toEqual(["✗ replay diverged at step 3: the run asked for reply 3, but the recording has only 2 replies."]);
}, 240_000);

it("a resume recorded into its run's file is replayed after the run, as one task carried on", async () => {
  mkdirSync(path.join(root.dir, "seed"));
  const a = workspace("a");
  const recording = path.join(root.dir, "run.jsonl");
  server = await startScriptedModelServer({
    turns: [
      call("write_to_file", { path: "first.txt", content: "one\n" }),
      call("attempt_completion", { result: "Wrote first.txt." }),
      call("write_to_file", { path: "second.txt", content: "two\n" }),
      call("attempt_completion", { result: "Wrote second.txt too." }),
    ],
  });
  const provider = ["--provider", "anthropic", "--model", "claude-sonnet-4-5", "--base-url", server.url, "--yolo"];
  const run = await runCairn(["run", ...provider, "--cwd", a, "--record", recording, "--json", "--", "Write first.txt"], { env: env(), timeoutMs: 60_000 });
  expect(run.code, run.stderr).toBe(0);
  const id = run.events.find((e) => e.type === "result")!.session_id as string;
  const resumed = await runCairn(["resume", id, "Now", "second.txt", ...provider, "--record", recording], { env: env(), timeoutMs: 60_000 });
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(readFileSync(path.join(a, "second.txt"), "utf8")).toBe("two\n");
  const types = readFileSync(recording, "utf8").trim().split("\n").map((l) => (JSON.parse(l) as { type: string }).type);
  expect(types).toEqual(["recording", "message", "session", "exchange", "exchange", "message", "session", "exchange", "exchange"]);
  await server.close();
  server = undefined;

  const b = workspace("b");
  const replayed = await runCairn(["replay", recording, "--yolo", "--cwd", b], { env: cleanEnv({ CAIRN_HOME: home.dir }), timeoutMs: 60_000 });
  expect(replayed.code, replayed.stderr).toBe(0);
  expect(replayed.stderr).toContain("the replay went as recorded (4 model replies)");
  expect(files(b)).toEqual(files(a));

  // Its resume alone, in a file of its own, is refused: the task's start is not in it.
  const alone = path.join(root.dir, "alone.jsonl");
  const lines = readFileSync(recording, "utf8").trim().split("\n");
  writeFileSync(alone, [lines[0], ...lines.slice(5)].join("\n") + "\n");
  const refused = await runCairn(["replay", alone, "--cwd", workspace("c")], { env: cleanEnv({ CAIRN_HOME: home.dir }) });
  expect(refused.code).toBe(2);
  expect(refused.stderr).toBe(`cairn: ${alone} starts in the middle of task ${id} (recorded by cairn resume): replay needs its run too; record it with cairn run --record, then resume with the same --record file.\n`);
}, 240_000);

it("cairn acp and cairn web refuse a --record folder they cannot make, and a file that is not a recording is refused by cairn replay", async () => {
  // acp and web record each session in a folder (record-hosts.test.ts): a file in its place is named at start, before any session.
  const taken = path.join(root.dir, "x.jsonl");
  writeFileSync(taken, "");
  for (const host of ["acp", "web"]) {
    const refused = await runCairn([host, "--record", taken], { env: cleanEnv({ CAIRN_HOME: home.dir }) });
    expect(refused.code, host).toBe(2);
    expect(refused.stderr).toBe(`cairn: Cannot make the recordings folder ${taken} (EEXIST); pass --record a folder you can write.\n`);
  }
  const other = path.join(root.dir, "other.jsonl");
  writeFileSync(other, '{"type":"recording","version":2,"created":"2027-01-01T00:00:00.000Z"}\n');
  const newer = await runCairn(["replay", other], { env: cleanEnv({ CAIRN_HOME: home.dir }) });
  expect(newer.code).toBe(2);
  expect(newer.stderr).toBe(`cairn: ${other} is a version 2 recording; this Cairn reads version 1: replay it with the Cairn that wrote it.\n`);
});
