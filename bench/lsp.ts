/**
 * Edits that check themselves: how long an edit's result waits for its diagnostics with a warm
 * TypeScript server on a 1,000-file project (the extra time a write_to_file or replace_in_file
 * takes), and the memory the servers hold. The servers run as in a task: Cairn's own
 * typescript-language-server and pyright, inside the command sandbox when bubblewrap is here.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { LanguageServers } from "../packages/core/src/lsp/index.js";
import { openSandbox } from "../packages/core/src/sandbox/index.js";
import type { BenchRow } from "./run.js";
import { median } from "./stats.js";

const FILES = 1_000;
const EDITS = 30;

/** A project of `FILES` modules, each importing two earlier ones, so the checker has a real graph. */
function writeProject(ws: string): void {
  mkdirSync(path.join(ws, "src"), { recursive: true });
  writeFileSync(path.join(ws, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, target: "es2022", module: "nodenext", noEmit: true }, include: ["src"] }));
  for (let i = 0; i < FILES; i += 1) {
    const imports = i < 2 ? "" : `import { f${i - 1} } from "./m${i - 1}.js";\nimport { f${i - 2} } from "./m${i - 2}.js";\n`;
    const body = i < 2 ? "n + 1" : `f${i - 1}(n) + f${i - 2}(n)`;
    writeFileSync(path.join(ws, "src", `m${i}.ts`), `${imports}\nexport interface Shape${i} { id: number; name: string }\n\nexport function f${i}(n: number): number {\n  return ${body};\n}\n`);
  }
}

/** Resident memory (MiB) of a process and everything below it, from /proc. */
function treeRssMib(root: number): number {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // Gone.
    }
  }
  let kib = 0;
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    try {
      const rss = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
      kib += rss ? Number(rss[1]) : 0;
    } catch {
      // Gone.
    }
    stack.push(...(children.get(pid) ?? []));
  }
  return kib / 1024;
}

export async function run(): Promise<BenchRow[]> {
  const dir = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-bench-lsp-")));
  const ws = path.join(dir, "ws");
  writeProject(ws);
  mkdirSync(path.join(ws, "py"));
  writeFileSync(path.join(ws, "py", "main.py"), "def greet(name: str) -> str:\n    return 'hi ' + name\n\ncount: int = 1\n");
  const opened = openSandbox({ mode: "workspace-write", network: "on", hiddenPaths: [], writablePaths: [] }, { workspace: ws, cairnHome: path.join(dir, "home"), env: process.env });
  const sandbox = opened.ok ? opened.sandbox : undefined;
  const where = sandbox ? "in the sandbox" : "without the sandbox";
  const servers = new LanguageServers({ workspace: ws, settings: undefined, sandbox });
  const notices: string[] = [];
  const notice = (message: string) => notices.push(message);
  const signal = new AbortController().signal;
  const rows: BenchRow[] = [];
  try {
    const file = path.join(ws, "src", `m${FILES - 1}.ts`);
    const good = readFileSync(file, "utf8");
    const bad = good.replace(`f${FILES - 2}(n)`, `f${FILES - 2}("n")`);
    const coldStart = performance.now();
    const cold = await servers.afterEdit(file, good, bad, signal, notice);
    const coldMs = performance.now() - coldStart;
    if (cold === undefined || cold.problems.length !== 1) {
      return [{ bench: "lsp", case: "TypeScript edit check", measure: `not run: the server gave no answer (${notices.join("; ") || "no notice"})` }];
    }
    rows.push({ bench: "lsp", case: `TypeScript: first edit's check, cold server (${FILES} files, ${where})`, measure: `${(coldMs / 1000).toFixed(1)} s` });
    const times: number[] = [];
    let text = bad;
    for (let i = 0; i < EDITS; i += 1) {
      // Alternately a fix and a new error, so every check has something to find or clear.
      const next = i % 2 === 0 ? good : bad;
      const started = performance.now();
      const found = await servers.afterEdit(file, text, next, signal, notice);
      times.push(performance.now() - started);
      if (found === undefined || found.problems.length !== (next === bad ? 1 : 0)) throw new Error(`lsp bench: edit ${i} got ${JSON.stringify(found)}`);
      text = next;
    }
    const warm = median(times);
    rows.push({
      bench: "lsp",
      case: `TypeScript: an edit's wait for its diagnostics, warm server (median of ${EDITS}, ${FILES} files, ${where})`,
      measure: `${warm.toFixed(0)} ms`,
      goal: "≤ 300 ms",
      pass: warm <= 300,
    });
    const py = path.join(ws, "py", "main.py");
    const pyText = readFileSync(py, "utf8");
    await servers.afterEdit(py, pyText, pyText.replace("count: int = 1", 'count: int = greet("x")'), signal, notice);
    const memory = servers.pids().map((pid) => treeRssMib(pid));
    rows.push({
      bench: "lsp",
      case: "servers' memory (resident, each with its children): TypeScript on the project, pyright on one file",
      measure: memory.map((m) => `${m.toFixed(0)} MiB`).join(" + "),
    });
  } finally {
    await servers.stop();
    await rm(dir, { recursive: true, force: true, maxRetries: 10 });
  }
  return rows;
}
