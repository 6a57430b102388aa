import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

// Each "run" imports the probe afresh, as a new cairn process would: only CAIRN_HOME carries over.
async function probeInNewProcess(pathVariable: string, unshareNet: boolean, cairnHome: string) {
  vi.resetModules();
  const { probeBubblewrap } = await import("./probe.js");
  return probeBubblewrap(pathVariable, unshareNet, cairnHome);
}

describe("probeBubblewrap across runs", () => {
  let dir: string;
  let bin: string;
  let log: string;
  let home: string;

  /** A bwrap on PATH that logs each start, then runs the real one (or fails like a refused user namespace). */
  function installBwrap(works: boolean): void {
    const file = path.join(bin, "bwrap");
    const body = works ? 'exec /usr/bin/bwrap "$@"' : 'echo "bwrap: setting up uid map: Permission denied" >&2; exit 1';
    writeFileSync(file, `#!/bin/sh\necho run >> '${log}'\n${body}\n`);
    chmodSync(file, 0o755);
  }
  const starts = () => readFileSync(log, "utf8").split("\n").filter(Boolean).length;

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "cairn-probe-"));
    bin = path.join(dir, "bin");
    log = path.join(dir, "starts.log");
    home = path.join(dir, "home");
    writeFileSync(log, "");
    mkdirSync(bin);
    mkdirSync(home);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("remembers a success in CAIRN_HOME: the next run starts no probe, another home or network choice does", async () => {
    installBwrap(true);
    expect(await probeInNewProcess(bin, false, home)).toEqual({ ok: true, bwrap: path.join(bin, "bwrap") });
    expect(starts()).toBe(1);
    expect(await probeInNewProcess(bin, false, home)).toEqual({ ok: true, bwrap: path.join(bin, "bwrap") });
    expect(starts()).toBe(1);
    expect((await probeInNewProcess(bin, true, home)).ok).toBe(true);
    expect(starts()).toBe(2);
    const otherHome = path.join(dir, "other-home");
    expect((await probeInNewProcess(bin, false, otherHome)).ok).toBe(true);
    expect(starts()).toBe(3);
  });

  it("probes a replaced bwrap again and reports its failure; a failure is never remembered", async () => {
    installBwrap(true);
    expect((await probeInNewProcess(bin, false, home)).ok).toBe(true);
    expect(starts()).toBe(1);

    installBwrap(false);
    const refused = await probeInNewProcess(bin, false, home);
    expect(refused).toEqual({ ok: false, reason: "bubblewrap cannot start a sandbox here (bwrap: setting up uid map: Permission denied)" });
    expect(starts()).toBe(2);
    expect((await probeInNewProcess(bin, false, home)).ok).toBe(false);
    expect(starts()).toBe(3);

    // Fixed again (a new file, so a new key): probed, and from then on remembered.
    installBwrap(true);
    expect((await probeInNewProcess(bin, false, home)).ok).toBe(true);
    expect((await probeInNewProcess(bin, false, home)).ok).toBe(true);
    expect(starts()).toBe(4);
  });

  it("a damaged cache file is only a probe again", async () => {
    installBwrap(true);
    mkdirSync(path.join(home, "cache"));
    writeFileSync(path.join(home, "cache", "sandbox-probe.json"), "{not json");
    expect((await probeInNewProcess(bin, false, home)).ok).toBe(true);
    expect(starts()).toBe(1);
    expect((await probeInNewProcess(bin, false, home)).ok).toBe(true);
    expect(starts()).toBe(1);
  });
});
