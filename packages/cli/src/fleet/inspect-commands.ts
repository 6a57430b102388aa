import type { Io } from "../headless.js";
import { findJob, listedStates, viewOf, type JobView } from "./job-view.js";
import { openQueue } from "./open-queue.js";

const short = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** `cairn fleet status [--json]`: every job the queue holds, newest first. */
export async function statusCommand(argv: string[], io: Io): Promise<number> {
  const json = argv.includes("--json");
  const { queue, redis, close } = await openQueue(io.env);
  try {
    const jobs = await queue.getJobs([...listedStates], 0, 9999);
    jobs.sort((a, b) => b.timestamp - a.timestamp);
    const views = await Promise.all(jobs.map((job) => viewOf(job, redis)));
    if (json) {
      io.stdout(`${JSON.stringify(views)}\n`);
      return 0;
    }
    if (views.length === 0) {
      io.stdout("No jobs. Add one with cairn fleet add --repo <repo> -- \"task\".\n");
      return 0;
    }
    const rows = views.map((v) => [v.id, v.state, v.result?.outcome ?? (v.failed_reason ? short(v.failed_reason, 30) : ""), v.result?.branch ?? "", short(v.repo, 30), short(v.task, 40)]);
    const header = ["JOB", "STATE", "OUTCOME", "BRANCH", "REPO", "TASK"];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    for (const row of [header, ...rows]) io.stdout(`${row.map((cell, i) => cell.padEnd(widths[i]!)).join("  ").trimEnd()}\n`);
    const counts = new Map<string, number>();
    for (const v of views) counts.set(v.state, (counts.get(v.state) ?? 0) + 1);
    io.stdout(`\n${[...counts].map(([state, n]) => `${n} ${state}`).join(", ")}\n`);
    return 0;
  } finally {
    await close();
  }
}

/** `cairn fleet result <job> [--json]`: what a finished job left; exit code 0 only for a success. */
export async function resultCommand(argv: string[], io: Io): Promise<number> {
  const json = argv.includes("--json");
  const id = argv.find((a) => !a.startsWith("-"));
  const { queue, redis, close } = await openQueue(io.env);
  try {
    const view = await viewOf(await findJob(queue, id, "cairn fleet result <job> [--json]"), redis);
    if (json) io.stdout(`${JSON.stringify(view)}\n`);
    else io.stdout(describe(view));
    return view.result?.outcome === "success" ? 0 : 1;
  } finally {
    await close();
  }
}

function describe(view: JobView): string {
  const lines = [`job ${view.id}: ${view.state}${view.result ? ` (${view.result.outcome})` : ""}`, `repo: ${view.repo}${view.ref ? ` at ${view.ref}` : ""}`, `task: ${view.task}`];
  if (view.failed_reason) lines.push(`reason: ${view.failed_reason}`);
  const r = view.result;
  if (r) {
    lines.push(`branch: ${r.branch ?? "(no changes)"}${r.pushed_to ? ` pushed to ${r.pushed_to}` : ""}`);
    if (r.files_changed.length > 0) lines.push(`files: ${r.files_changed.join(", ")}`);
    lines.push(`tokens: ${r.tokens.input} in, ${r.tokens.output} out; cost: ${r.cost_usd === null ? "unknown" : `$${r.cost_usd.toFixed(4)}`}`);
    lines.push(`worker: ${r.worker}, attempt ${r.attempt}, ${(r.duration_ms / 1000).toFixed(1)}s, exit code ${r.exit_code ?? "-"}`);
    if (r.answer) lines.push("", r.answer);
  } else if (view.state !== "failed" && view.state !== "cancelled") {
    lines.push("not finished yet: cairn fleet watch " + view.id);
  }
  return `${lines.join("\n")}\n`;
}
