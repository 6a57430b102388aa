import { describe, expect, it } from "vitest";
import { parseRunArgs } from "@cairn/host/run-args";
import { flagsFromOptions, validateRunFlags } from "./run-flags.js";
import { takeFlags } from "./take-flags.js";

describe("a fleet job's run options", () => {
  it("travel as given, and parse on the worker to the same run arguments", () => {
    const argv = ["--provider=anthropic", "--model", "m1", "--auto-approve", "edit,read", "--max-turns", "7", "--yolo", "--max-budget-usd", "1.5", "--sandbox", "read-only"];
    const { flags, args } = validateRunFlags(argv);
    expect(flags).toEqual(argv);
    const { cwd: _a, task: _b, ...onWorker } = parseRunArgs([...flags, "--", "fix it"], "/w") as Exclude<ReturnType<typeof parseRunArgs>, "help">;
    const { cwd: _c, task: _d, ...added } = args;
    expect(onWorker).toEqual(added);
    expect(added).toMatchObject({ provider: "anthropic", model: "m1", maxTurns: 7, yolo: true, maxBudgetUsd: 1.5 });
  });

  it("are refused when the run would refuse them, and --cwd and --json are the worker's", () => {
    expect(() => validateRunFlags(["--max-turns", "0"])).toThrow(/--max-turns needs a whole number/);
    expect(() => validateRunFlags(["--provider", "nope"])).toThrow(/Unknown provider "nope"/);
    expect(() => validateRunFlags(["--cwd", "/tmp"])).toThrow(/--cwd has no meaning for a fleet job/);
    expect(() => validateRunFlags(["--json"])).toThrow(/--json is the worker's/);
    expect(() => validateRunFlags(["--image", "shot.png"])).toThrow(/--image names a file on this machine/);
    expect(() => validateRunFlags(["--model", "m", "fix it"])).toThrow(/"fix it" is not a run option; the task goes after --/);
    expect(() => validateRunFlags(["--yolo", "--"])).toThrow(/"--" is not a run option/);
  });

  it("from a tasks file's options object become flags", () => {
    expect(flagsFromOptions({ "max-turns": 5, yolo: true, "auto-approve": ["read", "edit"], mode: "plan", sandbox: false })).toEqual(["--max-turns", "5", "--yolo", "--auto-approve", "read,edit", "--mode", "plan"]);
    expect(() => flagsFromOptions({ model: { name: "x" } })).toThrow(/option "model" must be/);
  });
});

describe("takeFlags", () => {
  it("takes the fleet's own flags (both spellings) and leaves the rest in order, up to --", () => {
    const { values, rest } = takeFlags(["--repo", "r", "--model", "m", "--ref=v1", "--", "--repo", "in the task"], ["repo", "ref"]);
    expect(values).toEqual({ repo: "r", ref: "v1" });
    expect(rest).toEqual(["--model", "m", "--", "--repo", "in the task"]);
  });
});
