import { describe, expect, it } from "vitest";
import { answerFrom, permissionOptions } from "./permission.js";

describe("permission choices", () => {
  it("offers always-allow for this task and for this workspace, each naming the rule it would keep, and neither for a protected file", () => {
    const edit = { tool_use_id: "t", summary: "write src/a.ts", suggested_rule: "write_to_file(src/**)" };
    expect(permissionOptions(edit).map((o) => [o.optionId, o.kind, o.name])).toEqual([
      ["allow_once", "allow_once", "Allow"],
      ["allow_always_task", "allow_always", "Always allow write_to_file(src/**) in this task"],
      ["allow_always", "allow_always", "Always allow write_to_file(src/**) in this workspace"],
      ["reject_once", "reject_once", "Reject"],
      ["reject_always", "reject_always", "Reject, and don't ask again in this session"],
    ]);
    const guarded = { ...edit, protected: { path: ".cairnignore", reason: "ignore rules" } };
    expect(permissionOptions(guarded).map((o) => o.optionId)).toEqual(["allow_once", "reject_once", "reject_always"]);
  });

  it("offers no always-allow when core suggests no rule: there would be nothing to remember", () => {
    expect(permissionOptions({ tool_use_id: "t", summary: "run it" }).map((o) => o.kind)).toEqual(["allow_once", "reject_once", "reject_always"]);
  });

  it("maps the choice to core's answer: each always-allow keeps the rule at its own scope, a cancelled prompt refuses", () => {
    const offered = permissionOptions({ tool_use_id: "t", summary: "write src/a.ts", suggested_rule: "write_to_file(src/**)" });
    expect(answerFrom({ outcome: "selected", optionId: "allow_always_task" }, offered)).toEqual({ approved: true, remember: "task", rejectAlways: false });
    expect(answerFrom({ outcome: "selected", optionId: "allow_always" }, offered)).toEqual({ approved: true, remember: "workspace", rejectAlways: false });
    expect(answerFrom({ outcome: "selected", optionId: "allow_once" }, offered)).toEqual({ approved: true, rejectAlways: false });
    expect(answerFrom({ outcome: "selected", optionId: "reject_always" }, offered)).toEqual({ approved: false, rejectAlways: true });
    expect(answerFrom({ outcome: "cancelled" }, offered)).toMatchObject({ approved: false, rejectAlways: false });
  });

  it("refuses an id the request did not offer, even one that allows elsewhere: always-allow on a protected file, a made-up id", () => {
    const guarded = permissionOptions({ tool_use_id: "t", summary: "write .cairnignore", suggested_rule: "write_to_file(.cairnignore)", protected: { path: ".cairnignore", reason: "ignore rules" } });
    expect(answerFrom({ outcome: "selected", optionId: "allow_always" }, guarded)).toEqual({ approved: false, rejectAlways: false, unoffered: "allow_always" });
    expect(answerFrom({ outcome: "selected", optionId: "allow_always_task" }, guarded)).toEqual({ approved: false, rejectAlways: false, unoffered: "allow_always_task" });
    expect(answerFrom({ outcome: "selected", optionId: "allow_always_user" }, guarded)).toEqual({ approved: false, rejectAlways: false, unoffered: "allow_always_user" });
    expect(answerFrom({ outcome: "selected", optionId: "allow_once" }, guarded)).toEqual({ approved: true, rejectAlways: false });
  });
});
