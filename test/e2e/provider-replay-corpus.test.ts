/**
 * The shared corpus of real provider streams (../shared/corpora/provider-recordings, recorded by
 * other projects against the live APIs), each replayed byte for byte through the real CLI: the
 * files right, the next request well-formed for that provider, usage and cost right, reasoning
 * neither lost nor leaked. The corpus is read where it lies, never copied into the project.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../support/cairn-cli.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { checkReplay, replay, type Recording } from "../support/provider-replay.js";

/**
 * Where the shared corpus lies: beside the clone (../shared), or where CAIRN_PROVIDER_CORPUS says.
 * A clone elsewhere (a CI machine's) has no copy; the project's own recordings
 * (test/support/provider-replays, replayed by provider-replay.test.ts) cover each behaviour there.
 */
const corpus = [process.env.CAIRN_PROVIDER_CORPUS, path.resolve(repoRoot, "../shared/corpora/provider-recordings"), "/work/shared/corpora/provider-recordings"].find(
  (dir): dir is string => dir !== undefined && existsSync(dir),
);
const fx = useE2eFixture();

const files = corpus === undefined ? [] : readdirSync(corpus).filter((name) => name.endsWith(".json"));

describe("real provider streams from the shared corpus, through the real CLI", () => {
  it("finds the shared corpus, or else the project's own recordings of the same behaviours", () => {
    if (corpus !== undefined) expect(files.length).toBeGreaterThanOrEqual(31);
    else expect(readdirSync(path.join(repoRoot, "test/support/provider-replays")).filter((name) => name.endsWith(".sse")).length).toBeGreaterThanOrEqual(12);
  });

  for (const file of files) {
    it(file.replace(/\.json$/, ""), async () => {
      const recording = JSON.parse(readFileSync(path.join(corpus!, file), "utf8")) as Recording;
      const replayed = await replay(recording, { workspace: fx.workspace.dir, home: fx.home.dir });
      expect(checkReplay(recording, replayed), replayed.run.stderr).toEqual([]);
    }, 120_000);
  }
});

// Only where the shared corpus is (its recording 01); provider-replay.test.ts prices the same model from the project's own.
if (corpus !== undefined) describe("--max-budget-usd with real usage", () => {
  const load = (prefix: string) => {
    const file = readdirSync(corpus!).find((name) => name.startsWith(prefix))!;
    return JSON.parse(readFileSync(path.join(corpus!, file), "utf8")) as Recording;
  };

  it("lets a gpt-4o-mini task finish under a budget that gpt-4o's price would have used up", async () => {
    // 1,131 input and 34 output tokens: $0.00019 at gpt-4o-mini's price, $0.0032 at gpt-4o's.
    const recording = load("01_");
    const replayed = await replay({ ...recording, args: ["--max-budget-usd", "0.001"] }, { workspace: fx.workspace.dir, home: fx.home.dir });
    expect(replayed.run.code, replayed.run.stderr).toBe(0);
    expect(replayed.run.events.at(-1)).toMatchObject({ type: "result", subtype: "success", result: "REPLAY_FINISHED" });
    expect(replayed.server.requests).toHaveLength(3);
  }, 120_000);

  it("still stops a priced task once its real cost reaches the budget (53 in + 15 out = $0.000017)", async () => {
    const recording = load("01_");
    const replayed = await replay({ ...recording, args: ["--max-budget-usd", "0.00001"] }, { workspace: fx.workspace.dir, home: fx.home.dir });
    expect(replayed.run.events.at(-1)).toMatchObject({ type: "result", subtype: "error_max_budget_usd" });
    expect(replayed.server.requests).toHaveLength(1);
  }, 120_000);
});
