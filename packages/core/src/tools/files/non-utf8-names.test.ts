import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { decodeName } from "../../disk/byte-names.js";
import { IgnoreRules } from "../../policy/ignore-rules.js";
import { readChecked, type Boundary } from "./index.js";

/**
 * A name that is not UTF-8 (as search finds them, decoded without loss) is opened by its exact
 * bytes and held to the same rules as any other: links are followed to where they lead, and the
 * ignore rules match the name as reading it as UTF-8 gives it.
 */
let base: string;
let ws: string;
let boundary: Boundary;
beforeEach(() => {
  base = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-names-")));
  ws = path.join(base, "ws");
  mkdirSync(ws);
  mkdirSync(path.join(base, "outside"));
  writeFileSync(path.join(base, "outside", "victim.txt"), "VICTIM\n");
  writeFileSync(path.join(ws, ".cairnignore"), "secret*\n");
  boundary = { cwd: ws, ignore: new IgnoreRules(ws) };
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

/** `<prefix>\xff<suffix>` in the workspace: the bytes for the file system, the decoded name for the tools. */
function rawName(prefix: string, suffix = ""): { bytes: Buffer; absolute: string } {
  const bytes = Buffer.concat([Buffer.from(`${ws}/${prefix}`), Buffer.from([0xff]), Buffer.from(suffix)]);
  return { bytes, absolute: decodeName(bytes) };
}

async function read(absolute: string): Promise<string> {
  const result = await readChecked(boundary, absolute, "shown");
  return result.ok ? result.data.toString("utf8") : `refused: ${result.message}`;
}

describe("names that are not UTF-8", () => {
  it("a plain file opens by its exact name (the control)", async () => {
    const file = rawName("f", ".txt");
    writeFileSync(file.bytes, "inside\n");
    writeFileSync(path.join(ws, "f\uFFFD.txt"), "another file, named with U+FFFD\n");
    expect(await read(file.absolute)).toBe("inside\n");
  });

  it("a link of such a name leading out of the workspace is refused", async () => {
    const link = rawName("l", ".txt");
    symlinkSync(path.join(base, "outside", "victim.txt"), link.bytes);
    expect(await read(link.absolute)).toMatch(/^refused: shown leads outside the workspace/);
  });

  it("such a name matched by the ignore rules is refused, and so is a link of such a name to an ignored file", async () => {
    const secret = rawName("secret");
    writeFileSync(secret.bytes, "SECRET\n");
    expect(await read(secret.absolute)).toMatch(/^refused: shown is blocked by \.cairnignore/);
    writeFileSync(path.join(ws, "secret.txt"), "SECRET\n");
    const link = rawName("x");
    symlinkSync("secret.txt", link.bytes);
    expect(await read(link.absolute)).toMatch(/^refused: shown is blocked by \.cairnignore/);
  });
});
