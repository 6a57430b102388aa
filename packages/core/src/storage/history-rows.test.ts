import { describe, expect, it } from "vitest";
import { historyRows, type HistoryEntry } from "./history.js";

const entry = (id: string, updatedAt: string, parent?: HistoryEntry["parent"]): HistoryEntry => ({
  id,
  title: id,
  workspace: "/w",
  provider: "anthropic",
  model: "m",
  mode: "act",
  status: "completed",
  createdAt: updatedAt,
  updatedAt,
  turns: 1,
  totalCostUsd: null,
  pid: 1,
  ...(parent ? { parent } : {}),
});
const shape = (rows: ReturnType<typeof historyRows>) => rows.map((r) => `${"  ".repeat(r.depth)}${r.entry.id}`);

describe("historyRows", () => {
  it("puts each task's sub-agents and hand-offs under it, oldest first, and orders tasks by the latest activity under them", () => {
    const rows = historyRows([
      entry("lone", "2026-01-05"),
      entry("handed", "2026-01-04", { id: "root", relation: "handoff" }),
      entry("sub-b", "2026-01-03", { id: "root", relation: "subagent" }),
      entry("sub-a", "2026-01-02", { id: "root", relation: "subagent" }),
      entry("root", "2026-01-01"),
      entry("sub-of-handed", "2026-01-06", { id: "handed", relation: "subagent" }),
    ]);
    // root's subtree was active last (sub-of-handed): it comes first, though root itself is oldest.
    expect(shape(rows)).toEqual(["root", "  sub-a", "  sub-b", "  handed", "    sub-of-handed", "lone"]);
  });

  it("lists a task whose parent is not listed on its own, and tasks whose links loop; the limit counts tasks of their own", () => {
    const rows = historyRows([
      entry("orphan", "2026-01-03", { id: "elsewhere", relation: "subagent" }),
      entry("a", "2026-01-02", { id: "b", relation: "handoff" }),
      entry("b", "2026-01-01", { id: "a", relation: "handoff" }),
      entry("old", "2026-01-01"),
    ]);
    // a and b name each other: listed all the same, after the rest.
    expect(shape(rows)).toEqual(["orphan", "old", "a", "  b"]);
    expect(shape(historyRows([entry("x", "2026-01-02"), entry("x-sub", "2026-01-03", { id: "x", relation: "subagent" }), entry("y", "2026-01-01")], 1))).toEqual(["x", "  x-sub"]);
  });
});
