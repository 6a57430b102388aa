import { spawn, type ChildProcess } from "node:child_process";
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { IgnoreRules } from "../../policy/ignore-rules.js";
import { verifyMatches } from "../search/verify-matches.js";
import { openChecked, readChecked, readCheckedSync, writeChecked, type Boundary } from "./index.js";

let base: string;
let ws: string;
let outside: string;
let boundary: Boundary;

beforeEach(() => {
  base = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-files-")));
  ws = path.join(base, "ws");
  outside = path.join(base, "outside");
  mkdirSync(ws);
  mkdirSync(outside);
  writeFileSync(path.join(ws, ".cairnignore"), ".env\nsecret/\n");
  writeFileSync(path.join(ws, ".env"), "SECRET=hunter2\n");
  writeFileSync(path.join(ws, "notes.txt"), "notes\n");
  writeFileSync(path.join(outside, "victim.txt"), "VICTIM\n");
  boundary = { cwd: ws, ignore: new IgnoreRules(ws) };
});
afterEach(() => {
  rmSync(base, { recursive: true, force: true });
});

const at = (relative: string) => path.join(ws, relative);

async function text(relative: string, within: Boundary = boundary): Promise<string> {
  const read = await readChecked(within, at(relative), relative);
  return read.ok ? read.data.toString("utf8") : `refused: ${read.message}`;
}

describe("openChecked / readChecked", () => {
  it("reads through a link to a normal file, and refuses links to ignored or outside files", async () => {
    symlinkSync("notes.txt", at("ok.txt"));
    symlinkSync(".env", at("cfg.txt"));
    symlinkSync(path.join(outside, "victim.txt"), at("out.txt"));
    expect(await text("ok.txt")).toBe("notes\n");
    expect(await text("cfg.txt")).toMatch(/^refused: cfg\.txt is blocked by \.cairnignore/);
    expect(await text("out.txt")).toMatch(/^refused: out\.txt leads outside the workspace/);
    expect(await text("out.txt", { ...boundary, outsideApproved: true })).toBe("VICTIM\n");
  });

  it("reads the task's scratch folder outside the workspace, but does not edit there without approval", async () => {
    const scratch = path.join(base, "scratch");
    mkdirSync(scratch);
    writeFileSync(path.join(scratch, "output.log"), "spilled\n");
    const withScratch = { ...boundary, scratchDir: scratch };
    const read = await readChecked(withScratch, path.join(scratch, "output.log"), "output.log");
    expect(read.ok && read.data.toString()).toBe("spilled\n");
    const opened = await openChecked(withScratch, path.join(scratch, "output.log"), "output.log", "edit");
    expect(opened.ok).toBe(false);
  });

  it("readCheckedSync reads the same files, and nothing it may not read", () => {
    symlinkSync("notes.txt", at("ok.txt"));
    symlinkSync(".env", at("cfg.txt"));
    symlinkSync(path.join(outside, "victim.txt"), at("out.txt"));
    expect(readCheckedSync(boundary, at("ok.txt"))?.toString()).toBe("notes\n");
    expect(readCheckedSync(boundary, at("cfg.txt"))).toBeUndefined();
    expect(readCheckedSync(boundary, `/proc/self/root${ws}/.env`)).toBeUndefined();
    expect(readCheckedSync(boundary, at("out.txt"))).toBeUndefined();
    expect(readCheckedSync(boundary, at("missing.txt"))).toBeUndefined();
  });

  it("throws file system errors for the caller to word", async () => {
    await expect(openChecked(boundary, at("missing.txt"), "missing.txt")).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("never returns an ignored file's bytes while another process swaps a name between a normal file and a link to it", async () => {
    writeFileSync(at("a.txt"), "PUBLIC\n");
    const swapper = await startSwapper(at("a.txt"), ".env", "PUBLIC\n");
    let served = 0;
    try {
      // At least 400 tries, and on until one has read the normal file (a busy machine can lose many races in a row).
      const deadline = Date.now() + 20_000;
      for (let i = 0; i < 400 || (served === 0 && Date.now() < deadline); i += 1) {
        const read = await readChecked(boundary, at("a.txt"), "a.txt").catch(() => undefined);
        if (read?.ok !== true) continue;
        expect(read.data.toString()).toBe("PUBLIC\n");
        served += 1;
      }
    } finally {
      swapper.kill();
    }
    expect(served).toBeGreaterThan(0); // the normal file was read whenever it was in place
  }, 60_000);

  it("never returns an ignored file's bytes while another process swaps a parent folder for a link to an ignored folder", async () => {
    mkdirSync(at("docs"));
    mkdirSync(at("secret"));
    writeFileSync(at("docs/a.txt"), "PUBLIC\n");
    writeFileSync(at("secret/a.txt"), "SECRET=in-folder\n");
    const swapper = await startFolderSwapper(at("docs"), at("secret"));
    let served = 0;
    try {
      // At least 2000 tries, and on until one has read the normal file (a busy machine can lose many races in a row).
      const deadline = Date.now() + 20_000;
      for (let i = 0; i < 2000 || (served === 0 && Date.now() < deadline); i += 1) {
        const read = await readChecked(boundary, at("docs/a.txt"), "docs/a.txt").catch(() => undefined);
        if (read?.ok !== true) continue;
        expect(read.data.toString()).toBe("PUBLIC\n");
        served += 1;
      }
    } finally {
      swapper.kill();
    }
    expect(served).toBeGreaterThan(0);
  }, 60_000);
});

describe("writeChecked", () => {
  it("writes through a link to a normal file (the link stays) and creates missing folders", async () => {
    symlinkSync("notes.txt", at("ok.txt"));
    expect(await writeChecked(boundary, at("ok.txt"), "ok.txt", "changed\n")).toEqual({ ok: true, real: at("notes.txt") });
    expect(lstatSync(at("ok.txt")).isSymbolicLink()).toBe(true);
    expect(readFileSync(at("notes.txt"), "utf8")).toBe("changed\n");
    expect((await writeChecked(boundary, at("new/deep/file.txt"), "new/deep/file.txt", "x")).ok).toBe(true);
    expect(readFileSync(at("new/deep/file.txt"), "utf8")).toBe("x");
    expect(readdirSync(at("new/deep"))).toEqual(["file.txt"]); // no temporary file left behind
  });

  it("refuses links to ignored files, links leading outside, and a path that changed since it was read", async () => {
    symlinkSync(".env", at("cfg.txt"));
    symlinkSync(path.join(outside, "victim.txt"), at("out.txt"));
    symlinkSync(outside, at("out-dir"));
    for (const name of ["cfg.txt", "out.txt", "out-dir/planted.txt", "secret/new.txt"]) {
      const written = await writeChecked(boundary, at(name), name, "pwned\n");
      expect(written.ok, name).toBe(false);
    }
    expect(readFileSync(at(".env"), "utf8")).toBe("SECRET=hunter2\n");
    expect(readFileSync(path.join(outside, "victim.txt"), "utf8")).toBe("VICTIM\n");
    expect(readdirSync(outside)).toEqual(["victim.txt"]);
    const changed = await writeChecked(boundary, at("notes.txt"), "notes.txt", "x", { expectReal: at("other.txt") });
    expect(changed).toMatchObject({ ok: false, message: expect.stringMatching(/changed while it was being written/) });
    expect(readFileSync(at("notes.txt"), "utf8")).toBe("notes\n");
  });

  it("writes outside through a link only when the call was approved as reaching outside", async () => {
    symlinkSync(path.join(outside, "victim.txt"), at("out.txt"));
    expect((await writeChecked({ ...boundary, outsideApproved: true }, at("out.txt"), "out.txt", "approved\n")).ok).toBe(true);
    expect(readFileSync(path.join(outside, "victim.txt"), "utf8")).toBe("approved\n");
  });

  it("keeps the permission bits it is given", async () => {
    expect((await writeChecked(boundary, at("run.sh"), "run.sh", "#!/bin/sh\n", { mode: 0o100755 })).ok).toBe(true);
    expect(lstatSync(at("run.sh")).mode & 0o777).toBe(0o755);
  });

  it("never writes outside while another process swaps the name between a file and a link to outside", async () => {
    writeFileSync(at("a.txt"), "inside\n");
    const swapper = await startSwapper(at("a.txt"), path.join(outside, "victim.txt"), "inside\n");
    let written = 0;
    try {
      // At least 400 tries, and on until one has landed inside.
      const deadline = Date.now() + 20_000;
      for (let i = 0; i < 400 || (written === 0 && Date.now() < deadline); i += 1) {
        const result = await writeChecked(boundary, at("a.txt"), "a.txt", `write ${i}\n`).catch(() => undefined);
        if (result?.ok === true) written += 1;
      }
    } finally {
      swapper.kill();
    }
    expect(readFileSync(path.join(outside, "victim.txt"), "utf8")).toBe("VICTIM\n");
    expect(readdirSync(outside)).toEqual(["victim.txt"]);
    expect(written).toBeGreaterThan(0);
    // Whatever a.txt is now, the link (if it is one) still points where it did: it was replaced, never followed.
    if (lstatSync(at("a.txt")).isSymbolicLink()) expect(readlinkSync(at("a.txt"))).toBe(path.join(outside, "victim.txt"));
  }, 60_000);
});

describe("writeChecked against a folder swapped for a link", () => {
  it("never leaves a file outside while another process swaps the parent folder for a link to outside", async () => {
    mkdirSync(at("sub"));
    writeFileSync(at("sub/a.txt"), "inside\n");
    const swapper = await startFolderSwapper(at("sub"), outside);
    let written = 0;
    try {
      const deadline = Date.now() + 20_000;
      for (let i = 0; i < 1500 || (written === 0 && Date.now() < deadline); i += 1) {
        const result = await writeChecked(boundary, at("sub/a.txt"), "sub/a.txt", `write ${i}\n`).catch(() => undefined);
        if (result?.ok === true) written += 1;
      }
    } finally {
      swapper.kill();
    }
    expect(readdirSync(outside)).toEqual(["victim.txt"]);
    expect(readFileSync(path.join(outside, "victim.txt"), "utf8")).toBe("VICTIM\n");
    expect(written).toBeGreaterThan(0);
  }, 60_000);
});

describe("verifyMatches", () => {
  it("keeps a search hit only if its lines are really in the file read through a checked descriptor now", async () => {
    writeFileSync(at("a.txt"), "one\ntwo needle\nthree\n");
    symlinkSync(".env", at("cfg.txt"));
    const hit = (file: string, lines: Array<[number, string]>) => ({ absolute: at(file), lines: lines.map(([number, text]) => ({ number, text, isMatch: true })) });
    const verified = await verifyMatches(
      [hit("a.txt", [[2, "two needle"]]), hit("a.txt", [[2, "SECRET=hunter2"]]), hit("cfg.txt", [[1, "SECRET=hunter2"]]), hit("a.txt", [[2, "…needle"]])],
      boundary,
      (absolute) => path.relative(ws, absolute),
    );
    expect(verified.files.map((f) => f.lines[0]?.text)).toEqual(["two needle", "…needle"]);
    expect(verified.dropped).toHaveLength(2);
  });
});

/**
 * A separate process that keeps swapping `name` between a regular file with `content` and a
 * symlink to `linkTarget`, each swap one atomic rename, as an attacker's background job would.
 */
async function startSwapper(name: string, linkTarget: string, content: string): Promise<ChildProcess> {
  // Each state is held for a random few hundred microseconds, so both are in place about as often
  // and the swaps fall at every point of a read or write.
  const script = `
    const fs = require("node:fs");
    const [name, target, content] = process.argv.slice(1);
    const link = name + ".swap-link", file = name + ".swap-file";
    const hold = () => { const until = process.hrtime.bigint() + BigInt(Math.floor(Math.random() * 400_000)); while (process.hrtime.bigint() < until); };
    process.stdout.write("ready\\n");
    for (;;) {
      try { fs.writeFileSync(file, content); fs.rmSync(link, { force: true }); fs.symlinkSync(target, link); } catch {}
      try { fs.renameSync(link, name); } catch {}
      hold();
      try { fs.renameSync(file, name); } catch {}
      hold();
    }`;
  return await started(spawn(process.execPath, ["-e", script, name, linkTarget, content], { stdio: ["ignore", "pipe", "inherit"] }));
}

/** Keeps swapping the real folder `folder` for a symlink to `linkTarget` and back. */
async function startFolderSwapper(folder: string, linkTarget: string): Promise<ChildProcess> {
  const script = `
    const fs = require("node:fs");
    const [folder, target] = process.argv.slice(1);
    const held = folder + ".held";
    const hold = () => { const until = process.hrtime.bigint() + BigInt(Math.floor(Math.random() * 400_000)); while (process.hrtime.bigint() < until); };
    process.stdout.write("ready\\n");
    for (;;) {
      try { fs.renameSync(folder, held); fs.symlinkSync(target, folder); } catch {}
      hold();
      try { fs.unlinkSync(folder); fs.renameSync(held, folder); } catch {}
      hold();
    }`;
  return await started(spawn(process.execPath, ["-e", script, folder, linkTarget], { stdio: ["ignore", "pipe", "inherit"] }));
}

async function started(child: ChildProcess): Promise<ChildProcess> {
  await new Promise<void>((resolve, reject) => {
    child.once("error", reject);
    child.stdout?.once("data", () => resolve());
  });
  return child;
}
