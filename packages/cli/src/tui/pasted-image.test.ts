import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { pastedImagePath } from "./pasted-image.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "cairn-paste-"));
  writeFileSync(path.join(dir, "shot.png"), "png");
  writeFileSync(path.join(dir, "my shot.JPG"), "jpg");
  writeFileSync(path.join(dir, "notes.txt"), "text");
  mkdirSync(path.join(dir, "folder.png"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("pastedImagePath: a pasted path to a picture is attached, anything else stays text", () => {
  it("takes a path as terminals and file managers paste it: plain, relative, quoted, escaped, a file:// URL, under ~", () => {
    const shot = path.join(dir, "shot.png");
    const spaced = path.join(dir, "my shot.JPG");
    expect(pastedImagePath(shot, "/")).toBe(shot);
    expect(pastedImagePath(`  ${shot}\n`, "/")).toBe(shot);
    expect(pastedImagePath("shot.png", dir)).toBe(shot);
    expect(pastedImagePath(`'${spaced}'`, "/")).toBe(spaced);
    expect(pastedImagePath(`"${spaced}"`, "/")).toBe(spaced);
    expect(pastedImagePath(spaced.replace(" ", "\\ "), "/")).toBe(spaced);
    expect(pastedImagePath(pathToFileURL(spaced).href, "/")).toBe(spaced);
    expect(pastedImagePath("~/shot.png", "/", dir)).toBe(shot);
  });

  it("leaves text alone: another kind of file, a missing image, a folder, several lines, a sentence naming an image", () => {
    expect(pastedImagePath(path.join(dir, "notes.txt"), "/")).toBeUndefined();
    expect(pastedImagePath(path.join(dir, "missing.png"), "/")).toBeUndefined();
    expect(pastedImagePath(path.join(dir, "folder.png"), "/")).toBeUndefined();
    expect(pastedImagePath(`${path.join(dir, "shot.png")}\n${path.join(dir, "shot.png")}`, "/")).toBeUndefined();
    expect(pastedImagePath(`look at ${path.join(dir, "shot.png")}`, "/")).toBeUndefined();
    expect(pastedImagePath("", dir)).toBeUndefined();
  });
});
