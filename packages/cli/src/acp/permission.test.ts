import { describe, expect, it } from "vitest";
import { answerFrom, permissionOptions } from "./permission.js";

describe("permission choices", () => {
  it("offers always-allow with the rule it would save, and never for a protected file", () => {
    const edit = { tool_use_id: "t", summary: "write src/a.ts", suggested_rule: "write_to_file(src/**)" };
    expect(permissionOptions(edit).map((o) => [o.kind, o.name])).toEqual([
      ["allow_once", "Allow"],
      ["allow_always", "Always allow write_to_file(src/**) in this workspace"],
      ["reject_once", "Reject"],
      ["reject_always", "Reject, and don't ask again in this session"],
    ]);
    const guarded = { ...edit, protected: { path: ".cairnignore", reason: "ignore rules" } };
    expect(permissionOptions(guarded).map((o) => o.kind)).toEqual(["allow_once", "reject_once", "reject_always"]);
  });

  it("maps the choice to core's answer: always-allow saves the rule for the workspace, a cancelled prompt refuses", () => {
    expect(answerFrom({ outcome: "selected", optionId: "allow_always" })).toEqual({ approved: true, remember: "workspace", rejectAlways: false });
    expect(answerFrom({ outcome: "selected", optionId: "allow_once" })).toEqual({ approved: true, rejectAlways: false });
    expect(answerFrom({ outcome: "selected", optionId: "reject_always" })).toEqual({ approved: false, rejectAlways: true });
    expect(answerFrom({ outcome: "cancelled" })).toMatchObject({ approved: false, rejectAlways: false });
  });
});
