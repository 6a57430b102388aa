import { existsSync } from "node:fs";
import { mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CommandOutput, defaultOutputLimits, type OutputLimits } from "./command-output.js";

let dir: string;
let logPath: string;

beforeEach(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-output-")));
  logPath = path.join(dir, "scratch", "command-1.log");
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const tiny: OutputLimits = {
  result: { headLines: 2, headChars: 1_000, tailLines: 3, tailChars: 1_000 },
  update: { headLines: 1, headChars: 1_000, tailLines: 2, tailChars: 1_000 },
  maxLogBytes: 1_000_000,
};

function lines(from: number, to: number): string {
  return Array.from({ length: to - from + 1 }, (_, i) => `line ${from + i}\n`).join("");
}

describe("CommandOutput", () => {
  it("returns a short output whole and writes no log file", () => {
    const output = new CommandOutput(logPath, tiny);
    output.write("hello\n");
    output.close();
    expect(output.render()).toBe("hello\n");
    expect(output.logPath).toBeUndefined();
    expect(existsSync(logPath)).toBe(false);
  });

  it("cuts a long output to head and tail, saying what was cut and where the whole of it is", async () => {
    const output = new CommandOutput(logPath, tiny);
    for (let i = 1; i <= 10; i += 1) output.write(`line ${i}\n`);
    output.close();
    expect(output.render()).toBe(
      `${lines(1, 2)}\n[... 5 lines (35 characters) cut from the middle of the output; the full output is in ${logPath}; read parts of it with read_file (start_line/end_line) or search it with grep ...]\n\n${lines(8, 10)}`,
    );
    expect(output.logPath).toBe(logPath);
    expect(await readFile(logPath, "utf8")).toBe(lines(1, 10));
  });

  it("shows the model only what is new since it last looked", () => {
    const output = new CommandOutput(logPath, tiny);
    output.write("a\nb\n");
    expect(output.takeUnread()).toBe("a\nb\n");
    expect(output.takeUnread()).toBe("");
    output.write("c\n");
    output.markRead();
    output.write("d\n");
    expect(output.takeUnread()).toBe("d\n");
  });

  it("spills to the log when only the update view overflows, with everything from the start", async () => {
    const roomy = { headLines: 100, headChars: 1_000, tailLines: 100, tailChars: 1_000 };
    const output = new CommandOutput(logPath, { ...tiny, result: roomy });
    output.write(lines(1, 3));
    output.takeUnread();
    output.write(lines(4, 7));
    expect(output.takeUnread()).toContain("[... 1 line (7 characters) cut from the middle of the output; the full output is in");
    output.write(lines(8, 9));
    output.close();
    expect(await readFile(logPath, "utf8")).toBe(lines(1, 9));
  });

  it("shows progress bars as their last drawing", () => {
    const output = new CommandOutput(logPath, tiny);
    output.write("downloading 10%\rdownloading 60%\rdownloading 100%\ndone\n");
    expect(output.render()).toBe("downloading 100%\ndone\n");
  });

  it("keeps memory bounded through 8 MB, and the log has every byte", async () => {
    const output = new CommandOutput(logPath, defaultOutputLimits);
    const chunk = "some line of output\n".repeat(3_277); // ~64 KB, like a pipe read
    let written = 0;
    let peak = 0;
    while (written < 8_000_000) {
      output.write(chunk);
      written += chunk.length;
      peak = Math.max(peak, output.memoryChars);
    }
    output.close();
    const { result, update } = defaultOutputLimits;
    const bound = result.headChars + result.tailChars + update.headChars + update.tailChars;
    expect(peak).toBeLessThanOrEqual(bound);
    expect(output.render().length).toBeLessThan(45_000);
    expect(output.totalChars).toBe(written);
    const log = await readFile(logPath, "utf8");
    expect(log.length).toBe(written);
    expect(log.slice(0, chunk.length)).toBe(chunk);
  });

  it("stops the log at its size cap and says so", async () => {
    const output = new CommandOutput(logPath, { ...tiny, maxLogBytes: 50 });
    output.write(lines(1, 20));
    output.close();
    const log = await readFile(logPath, "utf8");
    expect(log).toBe(`${lines(1, 20).slice(0, 50)}\n[The log stops here: it reached 50 characters.]\n`);
    expect(output.render()).toContain(`the first 50 characters of the output are in ${logPath}`);
  });

  it("says so when the log cannot be written, and still shows head and tail", async () => {
    await writeFile(path.join(dir, "a-file"), "");
    const output = new CommandOutput(path.join(dir, "a-file", "command-1.log"), tiny);
    output.write(lines(1, 10));
    expect(output.logPath).toBeUndefined();
    expect(output.render()).toMatch(/^line 1\nline 2\n\n\[\.\.\. 5 lines \(35 characters\) cut from the middle of the output; the full output could not be saved \(.+\) \.\.\.\]\n\nline 8\n/);
  });
});
