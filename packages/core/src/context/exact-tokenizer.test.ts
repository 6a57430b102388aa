import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { getEncoding } from "js-tiktoken";
import { describe, expect, it } from "vitest";
import { countExactly } from "./exact-tokenizer.js";

describe("exact tokenizer (worker thread)", () => {
  it("counts each text as js-tiktoken's o200k does, in order", async () => {
    const encoder = getEncoding("o200k_base");
    const texts = ["hello world", "", "const x = await fetch(url);\n", "こんにちは世界", "🙂 emoji and ünïcödé"];
    expect(await countExactly(texts)).toEqual(texts.map((t) => encoder.encode(t).length));
  });

  it("answers concurrent requests each with its own counts", async () => {
    const [a, b] = await Promise.all([countExactly(["one two three"]), countExactly(["four", "five six"])]);
    expect(a).toEqual([3]);
    expect(b).toEqual([1, 2]);
  });

  it("does not keep a process alive once the count is done", () => {
    // The built module, as the CLI runs it; the process must exit by itself after printing.
    const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../dist/context/exact-tokenizer.js");
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", `const { countExactly } = await import(${JSON.stringify(dist)}); console.log((await countExactly(["hello world"]))[0]);`], {
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(run.error, run.stderr).toBeUndefined();
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe("2");
  });
});
