import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findChromium, noChromiumMessage } from "./find-chromium.js";

let base: string;

beforeEach(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), "cairn-find-chromium-"));
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function program(file: string, mode = 0o755): Promise<string> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, "#!/bin/sh\n");
  await chmod(file, mode);
  return file;
}

describe("findChromium", () => {
  it("takes CAIRN_CHROMIUM_PATH first", async () => {
    const mine = await program(path.join(base, "my-chrome"));
    await program(path.join(base, "bin", "chromium"));
    const found = await findChromium({ env: { CAIRN_CHROMIUM_PATH: mine, PATH: path.join(base, "bin") }, locations: [] });
    expect(found).toEqual({ found: true, path: mine });
  });

  it("reports a CAIRN_CHROMIUM_PATH that is missing or not executable instead of looking elsewhere", async () => {
    await program(path.join(base, "bin", "chromium"));
    const missing = path.join(base, "nowhere", "chrome");
    expect(await findChromium({ env: { CAIRN_CHROMIUM_PATH: missing, PATH: path.join(base, "bin") }, locations: [] })).toEqual({
      found: false,
      message: `No Chromium found: CAIRN_CHROMIUM_PATH is ${missing}, which is not an executable file. Point it at a Chromium or Chrome executable, or unset it to search PATH.`,
    });
    const plain = await program(path.join(base, "not-executable"), 0o644);
    const found = await findChromium({ env: { CAIRN_CHROMIUM_PATH: plain }, locations: [] });
    // root may execute any file with an x bit, but this one has none
    expect(found.found).toBe(false);
  });

  it("searches PATH by name in order: chromium before google-chrome, whichever folder comes first", async () => {
    const first = path.join(base, "first");
    const second = path.join(base, "second");
    await program(path.join(first, "google-chrome"));
    const chromium = await program(path.join(second, "chromium"));
    await mkdir(path.join(first, "chromium-browser")); // a folder is not a program
    const found = await findChromium({ env: { PATH: [first, second].join(path.delimiter) }, locations: [] });
    expect(found).toEqual({ found: true, path: chromium });
  });

  it("falls back to the usual install locations", async () => {
    const usual = await program(path.join(base, "opt", "chrome"));
    const found = await findChromium({ env: { PATH: path.join(base, "empty") }, locations: [path.join(base, "missing"), usual] });
    expect(found).toEqual({ found: true, path: usual });
  });

  it("says how to install Chromium when there is none", async () => {
    expect(await findChromium({ env: { PATH: path.join(base, "empty") }, locations: [] })).toEqual({ found: false, message: noChromiumMessage });
    expect(noChromiumMessage).toMatch(/^No Chromium found: install it \(Debian\/Ubuntu: apt-get install chromium\) or set CAIRN_CHROMIUM_PATH/);
  });

  it("finds the system Chromium this machine has", async () => {
    const found = await findChromium({ env: { PATH: process.env.PATH ?? "" } });
    expect(found.found).toBe(true);
  });
});
