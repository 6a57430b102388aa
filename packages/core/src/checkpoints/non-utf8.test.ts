import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Checkpoints } from "./index.js";
import { tempWorkspace, type TempWorkspace } from "./test-support.js";
import { decodeName, encodeName, shownName } from "../disk/byte-names.js";

let tmp: TempWorkspace;
beforeEach(async () => {
  tmp = await tempWorkspace();
});
afterEach(async () => {
  await tmp.cleanup();
});

/** `f\xff.txt`: not UTF-8, so a file system call must be given these bytes, not a string. */
const name = Buffer.from([0x66, 0xff, 0x2e, 0x74, 0x78, 0x74]);
const inWorkspace = (...parts: Buffer[]) => Buffer.concat([Buffer.from(`${tmp.workspace}/`), ...parts.flatMap((p, i) => (i === 0 ? [p] : [Buffer.from("/"), p]))]);
const names = (folder: Buffer | string) => readdirSync(folder, { encoding: "buffer" }).map((n) => n.toString("hex"));

describe("file names that are not UTF-8", () => {
  it("decode and encode without loss; shown with the bytes escaped", () => {
    for (const bytes of [name, Buffer.from("plain é ✓ 😀"), Buffer.from([0xc3, 0x28]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xef, 0xbf, 0xbd, 0x80]), Buffer.from([0xf0, 0x9f, 0x98])]) {
      expect(encodeName(decodeName(bytes)).equals(bytes), bytes.toString("hex")).toBe(true);
    }
    expect(shownName(decodeName(name))).toBe("f\\xff.txt");
    expect(shownName(decodeName(Buffer.from("😀é")))).toBe("😀é");
  });

  it("are checkpointed, brought back byte for byte by a restore after a command deleted them, and listed in a diff", async () => {
    const content = Buffer.from([0x00, 0x01, 0xfe, 0x0a, 0x68, 0x69, 0x0a]);
    mkdirSync(inWorkspace(Buffer.from("sub"), name), { recursive: true });
    writeFileSync(inWorkspace(name), content);
    writeFileSync(inWorkspace(Buffer.from("sub"), name, Buffer.from("inner.txt")), "inner\n");
    writeFileSync(path.join(tmp.workspace, "plain.txt"), "plain\n");
    const checkpoints = await Checkpoints.open({ workspace: tmp.workspace, baseDir: tmp.baseDir });
    const start = await checkpoints.create("task start");

    // What a command does: the whole workspace is looked at.
    rmSync(inWorkspace(name));
    rmSync(inWorkspace(Buffer.from("sub"), name), { recursive: true });
    const step = await checkpoints.step("turn 1: execute_command");
    expect(step).toMatchObject({ kind: "checkpoint", created: true });
    expect(step.kind === "checkpoint" ? step.changes : []).toEqual(
      expect.arrayContaining([
        { path: "f\\xff.txt", status: "deleted" },
        { path: "sub/f\\xff.txt/inner.txt", status: "deleted" },
      ]),
    );

    const diff = await checkpoints.diff(start.hash);
    expect(diff.files.map((f) => [f.path, f.status])).toEqual(
      expect.arrayContaining([
        ["f\\xff.txt", "deleted"],
        ["sub/f\\xff.txt/inner.txt", "deleted"],
      ]),
    );
    expect(diff.patch).toContain("f\\xff.txt");

    const restored = await checkpoints.restore(start.hash);
    expect(restored.restored).toBe(2);
    expect(names(tmp.workspace)).toContain(name.toString("hex"));
    expect(readFileSync(inWorkspace(name)).equals(content)).toBe(true);
    expect(readFileSync(inWorkspace(Buffer.from("sub"), name, Buffer.from("inner.txt")), "utf8")).toBe("inner\n");

    // The shadow repository holds the very bytes of the name.
    const listed = execFileSync("git", ["--git-dir", checkpoints.gitDir, "ls-tree", "-r", "-z", "--name-only", start.hash], { env: { PATH: process.env.PATH, HOME: checkpoints.gitDir } });
    expect(listed.includes(Buffer.concat([name, Buffer.from([0])]))).toBe(true);
  });

  it("a change to such a file is seen by a step, and a restore puts the old bytes back", async () => {
    writeFileSync(inWorkspace(name), "one\n");
    const checkpoints = await Checkpoints.open({ workspace: tmp.workspace, baseDir: tmp.baseDir });
    const start = await checkpoints.create("task start");
    writeFileSync(inWorkspace(name), "two\n");
    const step = await checkpoints.step("turn 1: execute_command");
    expect(step.kind === "checkpoint" ? step.changes : []).toEqual([{ path: "f\\xff.txt", status: "modified" }]);
    await checkpoints.restore(start.hash);
    expect(readFileSync(inWorkspace(name), "utf8")).toBe("one\n");
    expect(existsSync(path.join(tmp.workspace, "f\uFFFD.txt"))).toBe(false);
  });
});
