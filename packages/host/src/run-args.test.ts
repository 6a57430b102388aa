import { settingOptions } from "@cairn/core";
import { describe, expect, it } from "vitest";
import { overridesOf, parseRunArgs, runHelp, type RunArgs } from "./run-args.js";
import { isUsageError } from "./usage-error.js";

describe("cairn run's flags, from core's settings table", () => {
  it("map onto session overrides, nested ones key by key", () => {
    const args = parseRunArgs(["--model", "m", "--retries", "0", "--sandbox", "off", "--auto-approve", "read,edit", "--mode", "plan", "--yolo", "--max-budget-usd", "0.5", "do", "it"], "/ws") as RunArgs;
    expect(args).toMatchObject({ task: "do it", cwd: "/ws", json: false });
    expect(overridesOf(args)).toEqual({ model: "m", retry: { maxRetries: 0 }, sandbox: { mode: "off" }, autoApprove: ["read", "edit"], mode: "plan", yolo: true, maxBudgetUsd: 0.5 });
  });

  it("--help lists every flag and environment variable of the table", () => {
    for (const option of Object.values(settingOptions) as Array<{ flag?: { name: string }; env?: string }>) {
      if (option.flag) expect(runHelp).toContain(`--${option.flag.name} `);
      if (option.env) expect(runHelp).toContain(option.env);
    }
    for (const line of runHelp.split("\n")) expect(line.length).toBeLessThanOrEqual(100);
  });

  it("a bad value is a one-line usage error naming the flag", () => {
    const cases: Array<[string[], RegExp]> = [
      [["--protocol", "json"], /^--protocol must be xml or native, got "json"\.$/],
      [["--max-turns", "0"], /^--max-turns needs a whole number above 0, got "0"\.$/],
      [["--sandbox", "loose"], /^--sandbox must be one of workspace-write, read-only, off, required, got "loose"\.$/],
      [["--mode", "build"], /^--mode must be act or plan, got "build"\.$/],
      [["--provider", "acme"], /^Unknown provider "acme"\. Use one of: /],
      [["--modle", "m"], /^unknown option --modle; did you mean --model\?$/],
      [["--max-turn", "3"], /^unknown option --max-turn; did you mean --max-turns\?$/],
      [["--jsno"], /^unknown option --jsno; did you mean --json\?$/],
      [["--frobnicate"], /^unknown option --frobnicate; cairn run --help lists the options$/],
      [["--verbose"], /^unknown option --verbose; progress already goes to stderr step by step, --json prints every event/],
      [["--yolo=1"], /^Option '--yolo' does not take an argument \(see cairn run --help\)$/],
    ];
    for (const [argv, message] of cases) {
      let thrown: unknown;
      try {
        parseRunArgs([...argv, "x"], "/ws");
      } catch (error) {
        thrown = error;
      }
      expect(isUsageError(thrown), argv.join(" ")).toBe(true);
      expect((thrown as Error).message).toMatch(message);
    }
  });
});
