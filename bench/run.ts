/**
 * Runs the benchmarks and prints one markdown table: `tsx bench/run.ts [filter]`.
 * Each bench is a module exporting `run(): Promise<BenchRow[]>`; add one with a line in BENCHES.
 * Progress goes to stderr, the table to stdout.
 */
import { pathToFileURL } from "node:url";

export type BenchRow = {
  bench: string;
  case: string;
  measure: string;
  baseline?: string;
  ratio?: string;
  goal?: string;
  pass?: boolean;
};

type BenchModule = { run(): Promise<BenchRow[]> };

const BENCHES: Record<string, () => Promise<BenchModule>> = {
  parser: () => import("./parser.js"),
  search: () => import("./search.js"),
  outline: () => import("./outline.js"),
  replace: () => import("./replace.js"),
  terminal: () => import("./terminal.js"),
  sandbox: () => import("./sandbox.js"),
  checkpoints: () => import("./checkpoints.js"),
  prompt: () => import("./prompt.js"),
  tui: () => import("./tui.js"),
  startup: () => import("./startup.js"),
  tokens: () => import("./tokens.js"),
  turns: () => import("./turns.js"),
  replies: () => import("./replies.js"),
  fleet: () => import("./fleet.js"),
  "parallel-reads": () => import("./parallel-reads.js"),
  lsp: () => import("./lsp.js"),
  web: () => import("./web.js"),
  journal: () => import("./journal.js"),
  peers: () => import("./peers.js"),
};

function cell(value: string | undefined): string {
  return (value ?? "").replaceAll("|", "\\|");
}

export function markdownTable(rows: readonly BenchRow[]): string {
  const header = "| bench | case | measure | baseline | ratio | goal | pass |\n|---|---|---|---|---|---|---|";
  const body = rows.map((r) => {
    const pass = r.pass === undefined ? "" : r.pass ? "✓" : "✗";
    return `| ${[r.bench, r.case, r.measure, r.baseline, r.ratio, r.goal, pass].map(cell).join(" | ")} |`;
  });
  return [header, ...body].join("\n");
}

async function main(): Promise<void> {
  const filter = process.argv[2];
  const names = Object.keys(BENCHES).filter((name) => filter === undefined || name.includes(filter));
  if (names.length === 0) {
    console.error(`No bench matches "${filter}". Available: ${Object.keys(BENCHES).join(", ")}; run without an argument for all.`);
    process.exitCode = 1;
    return;
  }
  const rows: BenchRow[] = [];
  for (const name of names) {
    const load = BENCHES[name];
    if (!load) continue;
    const started = performance.now();
    console.error(`bench ${name}...`);
    rows.push(...(await (await load()).run()));
    console.error(`bench ${name}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  console.log(markdownTable(rows));
  const failed = rows.filter((r) => r.pass === false);
  if (failed.length > 0) console.log(`\n${failed.length} goal(s) missed: ${failed.map((r) => `${r.bench} / ${r.case}`).join("; ")}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
