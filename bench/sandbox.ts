/**
 * The OS sandbox's cost per command: `true` under bubblewrap (with the arguments a real command
 * gets: masks for CAIRN_HOME, credentials and the workspace's ignored paths, computed each time)
 * vs a plain spawn of `true`; and a whole sandboxed terminal command vs an unsandboxed one. Each
 * pair runs interleaved in one process, so machine load hits both alike. Network on runs commands
 * in the isolated network (entered with nsenter) under the seccomp filter (opened by a shell);
 * what that adds is measured against the same sandbox sharing the host's network (allowLocalhost).
 */
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { openSandbox } from "../packages/core/src/sandbox/index.js";
import { Terminal } from "../packages/core/src/terminal/index.js";
import type { BenchRow } from "./run.js";
import { timePair } from "./terminal.js";

const RUNS = 40;

function spawnTrue(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: "ignore", env });
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`${file} exited ${code}`))));
  });
}

export async function run(): Promise<BenchRow[]> {
  const dir = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-bench-sandbox-")));
  const ws = path.join(dir, "ws");
  // A workspace with an ignore file and a few hundred files to walk, as a command start walks it.
  for (let d = 0; d < 20; d += 1) {
    mkdirSync(path.join(ws, "src", `mod${d}`), { recursive: true });
    for (let f = 0; f < 15; f += 1) writeFileSync(path.join(ws, "src", `mod${d}`, `file${f}.ts`), "export {};\n");
  }
  writeFileSync(path.join(ws, ".env"), "SECRET=1\n");
  // One nested too: its folders are pinned (mounted onto themselves) so a command cannot move it.
  writeFileSync(path.join(ws, "src", "mod3", ".env"), "SECRET=1\n");
  writeFileSync(path.join(ws, ".cairnignore"), ".env\n*.pem\n");
  const opened = openSandbox({ mode: "workspace-write", network: "on", hiddenPaths: [], writablePaths: [] }, { workspace: ws, cairnHome: path.join(dir, "home"), env: process.env });
  const sandbox = opened.ok ? opened.sandbox : undefined;
  if (sandbox === undefined) {
    await rm(dir, { recursive: true, force: true });
    const reason = opened.ok && opened.summary.mode === "off" ? opened.summary.reason : "unavailable";
    return [{ bench: "sandbox", case: "true under bubblewrap", measure: `not run: ${reason}` }];
  }
  const shared = openSandbox(
    { mode: "workspace-write", network: "on", allowLocalhost: true, hiddenPaths: [], writablePaths: [] },
    { workspace: ws, cairnHome: path.join(dir, "home"), env: process.env },
  );
  const hostNetwork = shared.ok ? shared.sandbox : undefined;
  const plain = new Terminal({ scratchDir: path.join(dir, "scratch-plain") });
  const boxed = new Terminal({ scratchDir: path.join(dir, "scratch-boxed"), sandbox });
  const rows: BenchRow[] = [];
  try {
    const [bare, wrapped] = await timePair(
      RUNS,
      () => spawnTrue("true", [], process.env),
      () => {
        const w = sandbox.wrap("true", [], { cwd: ws, env: process.env });
        if (!w.ok) throw new Error(w.message);
        return spawnTrue(w.file, w.args, w.env);
      },
    );
    rows.push({
      bench: "sandbox",
      case: `true under bubblewrap (median of ${RUNS})`,
      measure: `${wrapped.toFixed(1)} ms`,
      baseline: `${bare.toFixed(1)} ms plain spawn`,
      ratio: `${(wrapped / bare).toFixed(2)}×`,
      goal: "≤ 1.5× + 5 ms",
      pass: wrapped <= 1.5 * bare + 5,
    });

    if (hostNetwork !== undefined) {
      const spawnIn = (box: NonNullable<typeof hostNetwork>) => {
        const w = box.wrap("true", [], { cwd: ws, env: process.env });
        if (!w.ok) throw new Error(w.message);
        return spawnTrue(w.file, w.args, w.env);
      };
      const [onHost, isolated] = await timePair(RUNS, () => spawnIn(hostNetwork), () => spawnIn(sandbox));
      rows.push({
        bench: "sandbox",
        case: `true under bubblewrap, isolated network (median of ${RUNS})`,
        measure: `${isolated.toFixed(1)} ms`,
        baseline: `${onHost.toFixed(1)} ms sharing the host's network`,
        ratio: `${(isolated / onHost).toFixed(2)}×`,
        goal: "≤ +3 ms",
        pass: isolated <= onHost + 3,
      });
    }

    const runIn = async (terminal: Terminal) => {
      const result = await terminal.run({ command: "echo hi", cwd: ws });
      if (!result.started || result.outcome.type !== "exited") throw new Error("bench command did not finish");
    };
    const [plainCmd, boxedCmd] = await timePair(RUNS, () => runIn(plain), () => runIn(boxed));
    rows.push({
      bench: "sandbox",
      case: `terminal: echo hi sandboxed (median of ${RUNS})`,
      measure: `${boxedCmd.toFixed(1)} ms`,
      baseline: `${plainCmd.toFixed(1)} ms without the sandbox`,
      ratio: `${(boxedCmd / plainCmd).toFixed(2)}×`,
      goal: "≤ 1.5× + 5 ms",
      pass: boxedCmd <= 1.5 * plainCmd + 5,
    });
  } finally {
    await plain.dispose();
    await boxed.dispose();
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}
