import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigFileError, nearestName, readJsonConfig } from "../disk/config-file.js";
import { loadSettings, SettingsError } from "./settings.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "cairn-config-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("readJsonConfig", () => {
  it("reads JSON with a UTF-8 byte order mark, and a missing or blank file as nothing", () => {
    const file = path.join(dir, "a.json");
    expect(readJsonConfig(file)).toBeUndefined();
    writeFileSync(file, "  \n");
    expect(readJsonConfig(file)).toBeUndefined();
    writeFileSync(file, '\uFEFF{"model": "m"}');
    expect(readJsonConfig(file)).toEqual({ model: "m" });
  });

  it("names the line and column of a syntax error", () => {
    const file = path.join(dir, "a.json");
    writeFileSync(file, '{\n  "model": "m",\n  "maxTurns": 3,,\n}');
    expect(() => readJsonConfig(file)).toThrow(/line 3, column 17/);
  });

  it("refuses a FIFO instead of waiting on it forever", () => {
    const file = path.join(dir, "fifo.json");
    execFileSync("mkfifo", [file]);
    expect(() => readJsonConfig(file)).toThrow(ConfigFileError);
    expect(() => readJsonConfig(file)).toThrow(/not a regular file/);
  });
});

describe("settings.json is checked strictly", () => {
  it("a misspelt key is an error naming the nearest known key, at any depth", () => {
    writeFileSync(path.join(dir, "settings.json"), JSON.stringify({ commandPermisions: { deny: ["rm *"] } }));
    expect(() => loadSettings(dir)).toThrow(SettingsError);
    expect(() => loadSettings(dir)).toThrow(/unknown key "commandPermisions" \(did you mean "commandPermissions"\?\)/);
    writeFileSync(path.join(dir, "settings.json"), JSON.stringify({ retry: { maxRetry: 2 } }));
    expect(() => loadSettings(dir)).toThrow(/unknown key "maxRetry" \(did you mean "maxRetries"\?\) in "retry"/);
    writeFileSync(path.join(dir, "settings.json"), JSON.stringify({ commandPermissions: { deny: ["rm *"], alow: ["ls"] } }));
    expect(() => loadSettings(dir)).toThrow(/unknown key "alow" \(did you mean "allow"\?\) in "commandPermissions"/);
  });

  it("keeps accepting every known key, hooks included", () => {
    writeFileSync(path.join(dir, "settings.json"), JSON.stringify({ model: "m", checkpoints: false, hooks: { Stop: [] }, commandPermissions: { deny: ["rm *"] } }));
    expect(loadSettings(dir)).toMatchObject({ model: "m", checkpoints: false, commandPermissions: { deny: ["rm *"] } });
  });

  it("suggests only close names", () => {
    expect(nearestName("modle", ["model", "provider"])).toBe("model");
    expect(nearestName("zzzzzz", ["model", "provider"])).toBeUndefined();
  });
});
