/**
 * Checkpoints never lose work: every restore can be undone, files the agent never touched are kept
 * (or restored only when asked, and then recoverable), concurrent runs keep every checkpoint, a
 * folder replaced by a symlink breaks nothing, a restore never writes outside the workspace or
 * touches ignored files, and a damaged store says so in one line.
 */
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { cleanEnv, runCairn, startCairn, tempDir } from "../support/cairn-cli.js";

const fx = useE2eFixture();

const call = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }] });
const done = call("attempt_completion", { result: "done" });
const env = () => cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir });
const cli = (...args: string[]) => runCairn(args, { env: env(), timeoutMs: 60_000 });
const file = (p: string) => path.join(fx.workspace.dir, p);
const read = (p: string) => readFileSync(file(p), "utf8");
const taskIds = () => readdirSync(path.join(fx.home.dir, "tasks")).filter((n) => n !== "index.json");

async function runTask(turns: ScriptedTurn[], approve = "edit"): Promise<string> {
  const before = new Set(existsSync(path.join(fx.home.dir, "tasks")) ? taskIds() : []);
  fx.server = await startScriptedModelServer({ turns });
  const run = await cli("run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--auto-approve", approve, "--json", "do it");
  expect(run.code, run.stderr).toBe(0);
  expect(run.stderr).not.toMatch(/Checkpoint not made|checkpoints are off/);
  await fx.server.close();
  return taskIds().find((id) => !before.has(id))!;
}

type CheckpointRow = { hash: string; label: string; messageIndex: number };
async function records(id: string): Promise<CheckpointRow[]> {
  const list = await cli("checkpoints", id, "--json");
  expect(list.code, list.stderr).toBe(0);
  return JSON.parse(list.stdout) as CheckpointRow[];
}

/** The undo command a restore printed, run as printed. */
async function runUndo(stdout: string) {
  const undo = /To undo this restore: cairn (checkpoints restore \S+ \d+ --workspace)/.exec(stdout);
  expect(undo, stdout).not.toBeNull();
  return cli(...undo![1]!.split(" "));
}

describe("a restore never loses the person's files", () => {
  it("keeps a file the person made after the checkpoint, says so, lists a 'before restore' checkpoint and prints an undo that works", async () => {
    const id = await runTask([call("write_to_file", { path: "a.txt", content: "by the agent\n" }), done]);
    writeFileSync(file("notes.txt"), "the person's own notes\n");

    const restored = await cli("checkpoints", "restore", id, "1", "--workspace");
    expect(restored.code, restored.stderr).toBe(0);
    expect(existsSync(file("a.txt"))).toBe(false); // the agent's work undone
    expect(read("notes.txt")).toBe("the person's own notes\n"); // the person's kept
    expect(restored.stdout).toMatch(/Kept 1 file the agent never touched.*--all-files/);
    expect(restored.stdout).toMatch(/kept\s+notes\.txt \(created after the checkpoint\)/);
    expect(restored.stdout).toMatch(/1 removed/);

    const list = await records(id);
    const before = list.findIndex((r) => r.label === "before restore") + 1;
    expect(before).toBeGreaterThan(0);
    expect(list.map((r) => r.label)).toEqual(["task start", "turn 1: write_to_file", "task completed", "before restore", "restored to checkpoint 1"]);
    expect(restored.stdout).toContain(`To undo this restore: cairn checkpoints restore ${id} ${before} --workspace`);
    const listed = await cli("checkpoints", id);
    expect(listed.stdout).toMatch(new RegExp(`^\\s*${before}\\s+\\w+\\s+.*before restore$`, "m"));

    const undo = await runUndo(restored.stdout);
    expect(undo.code, undo.stderr).toBe(0);
    expect(read("a.txt")).toBe("by the agent\n");
    expect(read("notes.txt")).toBe("the person's own notes\n");
  }, 90_000);

  it("with --all-files removes the person's file too, naming it, and the printed undo brings it back", async () => {
    const id = await runTask([call("write_to_file", { path: "a.txt", content: "by the agent\n" }), done]);
    writeFileSync(file("notes.txt"), "the person's own notes\n");

    const restored = await cli("checkpoints", "restore", id, "1", "--workspace", "--all-files");
    expect(restored.code, restored.stderr).toBe(0);
    expect(existsSync(file("notes.txt"))).toBe(false);
    expect(existsSync(file("a.txt"))).toBe(false);
    expect(restored.stdout).toMatch(/1 file the agent never touched restored too/);
    expect(restored.stdout).toMatch(/removed\s+notes\.txt/);
    expect(restored.stdout).toMatch(/2 removed/);

    const undo = await runUndo(restored.stdout);
    expect(undo.code, undo.stderr).toBe(0);
    expect(read("notes.txt")).toBe("the person's own notes\n");
    expect(read("a.txt")).toBe("by the agent\n");
  }, 90_000);

  it("--both and --task keep every later checkpoint, so the files can go forward again", async () => {
    const id = await runTask([
      call("write_to_file", { path: "a.txt", content: "one\n" }),
      call("write_to_file", { path: "a.txt", content: "two\n" }),
      done,
    ]);
    const original = await records(id);
    expect(original).toHaveLength(4);

    const both = await cli("checkpoints", "restore", id, "2", "--both");
    expect(both.code, both.stderr).toBe(0);
    expect(read("a.txt")).toBe("one\n");
    const after = await records(id);
    expect(after.slice(0, 4)).toEqual(original);
    expect(after.slice(4).map((r) => r.label)).toEqual(["before restore", "restored to checkpoint 2"]);

    const task = await cli("checkpoints", "restore", id, "1", "--task");
    expect(task.code, task.stderr).toBe(0);
    expect((await records(id)).slice(0, 6)).toEqual(after);

    // Checkpoint 3 (after the second write) is still listed and still restores.
    const forward = await cli("checkpoints", "restore", id, "3", "--workspace");
    expect(forward.code, forward.stderr).toBe(0);
    expect(read("a.txt")).toBe("two\n");
  }, 90_000);
});

describe("concurrent runs in one workspace", () => {
  it("eight runs at once keep every checkpoint", async () => {
    const runs = 8;
    const steps = 3;
    const servers: ScriptedModelServer[] = [];
    try {
      for (let i = 0; i < runs; i++) {
        servers.push(
          await startScriptedModelServer({
            turns: [
              ...Array.from({ length: steps }, (_, step) => call("write_to_file", { path: `run-${i}.txt`, content: `run ${i} step ${step + 1}\n` })),
              done,
            ],
          }),
        );
      }
      const results = await Promise.all(
        servers.map((server, i) =>
          runCairn(["run", "--provider", "anthropic", "--base-url", server.url, "--cwd", fx.workspace.dir, "--auto-approve", "edit", `run ${i}`], {
            env: env(),
            timeoutMs: 180_000,
          }),
        ),
      );
      for (const result of results) {
        expect(result.code, result.stderr).toBe(0);
        expect(result.stderr).not.toMatch(/Checkpoint not made|lock/i);
      }
      const ids = taskIds();
      expect(ids).toHaveLength(runs);
      for (const id of ids) {
        // task start, one per write, task completed; the other runs' files show up as changes outside this agent.
        const list = (await records(id)).filter((r) => r.label !== "changes outside the agent");
        expect(list.map((r) => r.label)).toEqual(["task start", "turn 1: write_to_file", "turn 2: write_to_file", "turn 3: write_to_file", "task completed"]);
        // Every one of them is in the store: the first and the last can be compared.
        const diff = await cli("checkpoints", "diff", id, "1", String((await records(id)).length));
        expect(diff.code, diff.stderr).toBe(0);
        expect(diff.stdout).toMatch(/added\s+run-\d\.txt/);
      }
      for (let i = 0; i < runs; i++) expect(read(`run-${i}.txt`)).toBe(`run ${i} step ${steps}\n`);
    } finally {
      await Promise.all(servers.map((s) => s.close()));
    }
  }, 240_000);
});

describe("a folder replaced by a symlink", () => {
  it("is stored as a link; later checkpoints, diff and restore all keep working", async () => {
    const outside = tempDir("outside");
    try {
      writeFileSync(path.join(outside.dir, "elsewhere.ts"), "not in the workspace\n");
      mkdirSync(file("src"));
      writeFileSync(file("src/a.ts"), "export const a = 1;\n");
      const first = await runTask([call("write_to_file", { path: "src/b.ts", content: "export const b = 2;\n" }), done]);

      rmSync(file("src"), { recursive: true });
      symlinkSync(outside.dir, file("src"));
      const second = await runTask([call("write_to_file", { path: "c.txt", content: "c\n" }), done]);
      expect((await records(second)).map((r) => r.label)).toEqual(["task start", "turn 1: write_to_file", "task completed"]);

      const diff = await cli("checkpoints", "diff", first, "1");
      expect(diff.code, diff.stderr).toBe(0);
      expect(diff.stderr).not.toContain("    at ");
      expect(diff.stdout).toMatch(/deleted\s+src\/a\.ts/);
      expect(diff.stdout).toMatch(/added\s+src\b/);
      expect(diff.stdout).not.toContain("elsewhere.ts"); // never followed out of the workspace

      // The link was the person's doing: kept by default, restored with --all-files.
      const kept = await cli("checkpoints", "restore", first, "1", "--workspace");
      expect(kept.code, kept.stderr).toBe(0);
      expect(lstatSync(file("src")).isSymbolicLink()).toBe(true);
      expect(kept.stdout).toMatch(/kept\s+src\b/);

      const restored = await cli("checkpoints", "restore", first, "1", "--workspace", "--all-files");
      expect(restored.code, restored.stderr).toBe(0);
      expect(lstatSync(file("src")).isDirectory()).toBe(true);
      expect(read("src/a.ts")).toBe("export const a = 1;\n");
      expect(readdirSync(outside.dir)).toEqual(["elsewhere.ts"]);

      // Undo brings the link back, as a link.
      const undo = await runUndo(restored.stdout);
      expect(undo.code, undo.stderr).toBe(0);
      expect(lstatSync(file("src")).isSymbolicLink()).toBe(true);
      expect(readlinkSync(file("src"))).toBe(outside.dir);
      expect(readdirSync(outside.dir)).toEqual(["elsewhere.ts"]);
    } finally {
      outside.cleanup();
    }
  }, 120_000);
});

describe("a restore writes only on real paths inside the workspace", () => {
  it("replaces a link the agent planted instead of writing through it to the outside", async () => {
    const outside = tempDir("outside");
    try {
      mkdirSync(file("dir"));
      writeFileSync(file("dir/file.txt"), "inside\n");
      const id = await runTask(
        [call("execute_command", { command: `rm -rf dir && ln -s ${outside.dir} dir`, requires_approval: false }), done],
        "edit,all-commands",
      );
      expect(lstatSync(file("dir")).isSymbolicLink()).toBe(true);

      const restored = await cli("checkpoints", "restore", id, "1", "--workspace");
      expect(restored.code, restored.stderr).toBe(0);
      // Positive control: the file is back, in a real folder inside the workspace.
      expect(lstatSync(file("dir")).isDirectory()).toBe(true);
      expect(read("dir/file.txt")).toBe("inside\n");
      // Marker: nothing was written outside.
      expect(readdirSync(outside.dir)).toEqual([]);
    } finally {
      outside.cleanup();
    }
  }, 90_000);

  it("never writes or removes files matched by .cairnignore", async () => {
    writeFileSync(file("config.txt"), "old config\n");
    writeFileSync(file("report"), "a file at first\n");
    const id = await runTask(
      [
        call("write_to_file", { path: "config.txt", content: "agent config\n" }),
        call("write_to_file", { path: "a.txt", content: "agent a\n" }),
        call("execute_command", { command: "rm report && mkdir report && echo made > report/made.txt", requires_approval: false }),
        done,
      ],
      "edit,all-commands",
    );
    // The person then puts config.txt and *.env out of the agent's reach and keeps secrets there.
    writeFileSync(file(".cairnignore"), "config.txt\n*.env\n");
    writeFileSync(file("config.txt"), "the person's secret config\n");
    writeFileSync(file("report/keys.env"), "SECRET=1\n");

    const restored = await cli("checkpoints", "restore", id, "1", "--workspace", "--all-files");
    expect(restored.code, restored.stderr).toBe(0);
    expect(read("config.txt")).toBe("the person's secret config\n");
    // The file `report` cannot come back without deleting the folder holding the ignored keys.env.
    expect(read("report/keys.env")).toBe("SECRET=1\n");
    expect(restored.stdout).toMatch(/Left alone: .*config\.txt/);
    expect(restored.stdout).toMatch(/Left alone: .*report/);
    // Positive control: the agent's other files are undone.
    expect(existsSync(file("a.txt"))).toBe(false);
    expect(existsSync(file("report/made.txt"))).toBe(false);
  }, 90_000);
});

describe("a damaged checkpoint store", () => {
  const storeOf = () => {
    const base = path.join(fx.home.dir, "checkpoints");
    return path.join(base, readdirSync(base).find((n) => !n.startsWith("."))!);
  };

  for (const [damage, spoil] of [
    ["a garbage HEAD", (store: string) => writeFileSync(path.join(store, "HEAD"), "garbage\n")],
    [
      "deleted objects",
      (store: string) => {
        for (const entry of readdirSync(path.join(store, "objects"))) {
          if (entry !== "info") rmSync(path.join(store, "objects", entry), { recursive: true });
        }
      },
    ],
  ] as const) {
    it(`with ${damage}: diff and restore say so in one line, exit 1; the list shows what the store still holds (see checkpoints-damaged-list); a new task runs without checkpoints`, async () => {
      const id = await runTask([call("write_to_file", { path: "a.txt", content: "a\n" }), done]);
      const store = storeOf();
      spoil(store);
      const list = await cli("checkpoints", id);
      expect(list.code, list.stderr).toBe(damage === "deleted objects" ? 1 : 0);
      expect(list.stderr.trim().split("\n")).toHaveLength(1);
      expect(list.stderr).toMatch(new RegExp(`checkpoint store at ${store} (is damaged \\(|\\(the store is damaged: )`));
      expect(list.stderr).toMatch(/move .* aside to start a new one/);
      for (const args of [["diff", id, "1"], ["restore", id, "1", "--workspace"]]) {
        const result = await cli("checkpoints", ...args);
        expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(1);
        expect(result.stderr).not.toContain("    at ");
        expect(result.stderr.trim().split("\n")).toHaveLength(1);
        expect(result.stderr).toContain(`the checkpoint store at ${store} is damaged (`);
        expect(result.stderr).toMatch(/move .* aside to start a new one/);
      }
      expect(read("a.txt")).toBe("a\n");

      fx.server = await startScriptedModelServer({ turns: [call("write_to_file", { path: "b.txt", content: "b\n" }), done] });
      const run = await cli("run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--auto-approve", "edit", "go on");
      expect(run.code, run.stderr).toBe(0);
      expect(read("b.txt")).toBe("b\n");
      expect(run.stderr).not.toContain("    at ");
      expect(run.stderr.match(/checkpoint/gi)?.length ?? 0).toBeGreaterThan(0);
      expect(run.stderr.split("\n").filter((line) => /checkpoint/i.test(line))).toHaveLength(1);
    }, 90_000);
  }

  it("that breaks while a task runs: one warning, and the task goes on without checkpoints", async () => {
    fx.server = await startScriptedModelServer({
      turns: [
        { ...call("write_to_file", { path: "a.txt", content: "a\n" }), delayMs: 1_500 },
        call("write_to_file", { path: "b.txt", content: "b\n" }),
        call("write_to_file", { path: "c.txt", content: "c\n" }),
        done,
      ],
    });
    const cairn = startCairn(
      ["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--auto-approve", "edit", "--json", "write three files"],
      { env: env() },
    );
    await cairn.waitForLine((line) => line.includes('"type":"checkpoint"'));
    const store = storeOf();
    writeFileSync(path.join(store, "HEAD"), "garbage\n");
    expect(await cairn.exited, cairn.output().stderr).toBe(0);
    for (const name of ["a", "b", "c"]) expect(read(`${name}.txt`)).toBe(`${name}\n`);
    const { stdout, stderr } = cairn.output();
    const warnings = stdout.split("\n").filter((line) => line.includes("Checkpoint not made"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`the checkpoint store at ${store} is damaged`);
    expect(stderr).not.toContain("    at ");
  }, 90_000);
});
