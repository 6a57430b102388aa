import type { Io } from "@cairn/host/io";
import { findJob, listedStates, viewOf, type JobView } from "@cairn/host/fleet/job-view";
import { openQueue } from "@cairn/host/fleet/open-queue";
import { printable, printableJson, printableLine } from "./printable.js";

/** A table cell: one printable line (what a job holds came through the queue), cut to `max`. */
const short = (text: string, max: number) => {
  const line = printableLine(text);
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

/** `cairn fleet status [--json]`: every job the queue holds, newest first. */
export async function statusCommand(argv: string[], io: Io): Promise<number> {
  const json = argv.includes("--json");
  const { queue, redis, close } = await openQueue(io.env);
  try {
    const jobs = await queue.getJobs([...listedStates], 0, 9999);
    jobs.sort((a, b) => b.timestamp - a.timestamp);
    const views = await Promise.all(jobs.map((job) => viewOf(job, redis)));
    if (json) {
      io.stdout(`${printableJson(views)}\n`);
      return 0;
    }
    if (views.length === 0) {
      io.stdout("No jobs. Add one with cairn fleet add --repo <repo> -- \"task\".\n");
      return 0;
    }
    const rows = views.map((v) => [
      printableLine(v.id),
      v.state,
      printableLine(v.result?.outcome ?? (v.failed_reason ? short(v.failed_reason, 30) : "")),
      printableLine(v.result?.branch ?? ""),
      short(v.repo, 30),
      short(v.task, 40),
    ]);
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
    if (json) io.stdout(`${printableJson(view)}\n`);
    else io.stdout(describe(view));
    return view.result?.outcome === "success" ? 0 : 1;
  } finally {
    await close();
  }
}

/**
 * What `result` prints. Every field came through the queue: a field of one line stays one line (a
 * newline in a repository name must not forge a "branch:" line), the task and answer keep theirs.
 */
function describe(view: JobView): string {
  const one = printableLine;
  const lines = [`job ${one(view.id)}: ${view.state}${view.result ? ` (${one(view.result.outcome)})` : ""}`, `repo: ${one(view.repo)}${view.ref ? ` at ${one(view.ref)}` : ""}`, `task: ${printable(view.task)}`];
  if (view.failed_reason) lines.push(`reason: ${printable(view.failed_reason)}`);
  const r = view.result;
  if (r) {
    lines.push(`branch: ${r.branch ? one(r.branch) : "(no changes)"}${r.pushed_to ? ` pushed to ${one(r.pushed_to)}` : ""}`);
    if (r.files_changed.length > 0) lines.push(`files: ${r.files_changed.map(one).join(", ")}`);
    lines.push(`tokens: ${r.tokens.input} in, ${r.tokens.output} out; cost: ${r.cost_usd === null ? "unknown" : `$${r.cost_usd.toFixed(4)}`}`);
    lines.push(`worker: ${one(r.worker)}, attempt ${r.attempt}, ${(r.duration_ms / 1000).toFixed(1)}s, exit code ${r.exit_code ?? "-"}`);
    if (r.answer) lines.push("", printable(r.answer));
  } else if (view.state !== "failed" && view.state !== "cancelled") {
    lines.push(`not finished yet: cairn fleet watch ${one(view.id)}`);
  }
  return `${lines.join("\n")}\n`;
}
