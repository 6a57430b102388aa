import { chmod } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Checkpoints } from "./index.js";
import { bulkThreshold } from "./stage.js";
import { filesInCheckpoint, read, tempWorkspace, writeFiles, type TempWorkspace } from "./test-support.js";

// Root reads every file whatever its mode; to meet an unreadable file this test process (a worker of
// its own) gives up root first. Everything below then runs as `nobody`, git included.
beforeAll(() => {
  if (process.getuid?.() === 0 && process.setuid && process.setgid) {
    process.setgid(65534);
    process.setuid(65534);
  }
});

let tmp: TempWorkspace;
let ws: string;

beforeEach(async () => {
  tmp = await tempWorkspace();
  ws = tmp.workspace;
});

afterEach(async () => {
  await chmod(path.join(ws, "locked"), 0o755).catch(() => {});
  await tmp.cleanup();
});

describe("files that cannot be read", () => {
  it("skips an unreadable file or folder without failing the checkpoint, and restore leaves them alone", async () => {
    await writeFiles(ws, { "ok.txt": "v1\n", "secret.txt": "no access\n", "locked/inside.txt": "hidden\n" });
    await chmod(path.join(ws, "secret.txt"), 0o000);
    await chmod(path.join(ws, "locked"), 0o000);
    const checkpoints = await Checkpoints.open({ workspace: ws, baseDir: tmp.baseDir });

    const first = await checkpoints.create("first");
    expect(filesInCheckpoint(checkpoints.gitDir, first.hash)).toEqual(["ok.txt"]);
    await writeFiles(ws, { "ok.txt": "v2\n" });
    await checkpoints.create("second");
    await checkpoints.restore(first.hash);
    expect(await read(ws, "ok.txt")).toBe("v1\n");
    await chmod(path.join(ws, "secret.txt"), 0o644);
    expect(await read(ws, "secret.txt")).toBe("no access\n");
  });

  it("never overwrites a file that became unreadable with older content", async () => {
    await writeFiles(ws, { "a.txt": "v0\n" });
    const checkpoints = await Checkpoints.open({ workspace: ws, baseDir: tmp.baseDir });
    const v0 = await checkpoints.create("v0");
    await writeFiles(ws, { "a.txt": "v1\n" });
    await checkpoints.create("v1");
    await writeFiles(ws, { "a.txt": "v2, never checkpointed, then locked\n" });
    await chmod(path.join(ws, "a.txt"), 0o000);
    const locked = await checkpoints.create("locked");
    expect(filesInCheckpoint(checkpoints.gitDir, locked.hash)).toEqual([]);

    await checkpoints.restore(v0.hash);
    await chmod(path.join(ws, "a.txt"), 0o644);
    expect(await read(ws, "a.txt")).toBe("v2, never checkpointed, then locked\n");
  });

  it("handles unreadable files among many changes (the bulk `git add` path)", async () => {
    const many = (round: string) => Object.fromEntries(Array.from({ length: bulkThreshold + 10 }, (_, i) => [`gen/f${i}.txt`, `${round} ${i}\n`]));
    await writeFiles(ws, { ...many("v0"), "a.txt": "v0\n" });
    const checkpoints = await Checkpoints.open({ workspace: ws, baseDir: tmp.baseDir });
    const v0 = await checkpoints.create("v0");
    await writeFiles(ws, { ...many("v1"), "a.txt": "v1\n" });
    await checkpoints.create("v1");
    await writeFiles(ws, { ...many("v2"), "a.txt": "v2, locked\n", "new-locked.txt": "new\n" });
    await chmod(path.join(ws, "a.txt"), 0o000);
    await chmod(path.join(ws, "new-locked.txt"), 0o000);
    const locked = await checkpoints.create("locked");
    const files = filesInCheckpoint(checkpoints.gitDir, locked.hash);
    expect(files).toHaveLength(bulkThreshold + 10);

    await checkpoints.restore(v0.hash);
    await chmod(path.join(ws, "a.txt"), 0o644);
    expect(await read(ws, "a.txt")).toBe("v2, locked\n");
    expect(await read(ws, "gen/f3.txt")).toBe("v0 3\n");
  });
});
