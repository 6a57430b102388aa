import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { replaceInFileTool } from "../replace-in-file.js";
import { testContext } from "../test-context.js";
import type { ToolContext } from "../tool.js";
import { writeToFileTool } from "../write-to-file.js";
import type { PreviewedFiles } from "./previewed-file.js";

/** An edit writes only over the text its preview (the diff the person saw) started from. */

let ws: string;
let ctx: ToolContext;
let previewed: PreviewedFiles;

beforeEach(() => {
  ws = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-previewed-")));
  writeFileSync(path.join(ws, "a.txt"), "one\ntwo\n");
  previewed = new Map();
  ctx = { ...testContext(ws), previewed };
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

const block = (search: string, replacement: string) => `------- SEARCH\n${search}\n=======\n${replacement}\n+++++++ REPLACE\n`;
const onDisk = (p: string) => readFileSync(path.join(ws, p), "utf8");

/** Previews the call as the approval does, then runs it as execute-call does, with `between` done in the meantime. */
async function previewThenRun(tool: typeof replaceInFileTool | typeof writeToFileTool, raw: Record<string, string>, between: () => void) {
  const input = tool.parameters.parse(raw) as never;
  const preview = tool.preview!(input, { cwd: ws, ignore: ctx.ignore, hostTexts: hostTexts(), previewed });
  between();
  return { preview, result: await tool.execute(input, ctx) };
}

let buffers: Map<string, string> | undefined;
const hostTexts = () => (buffers === undefined ? undefined : new Map(buffers));

describe("an edit whose file changed after its diff was shown", () => {
  beforeEach(() => {
    buffers = undefined;
  });

  it("on disk: replace_in_file and write_to_file write nothing and say so in one line; unchanged, both apply", async () => {
    const line = "a.txt changed on disk after the person was shown this edit's diff, so nothing was written: read a.txt again and redo the edit.";
    const replaced = await previewThenRun(replaceInFileTool, { path: "a.txt", diff: block("one", "ONE") }, () => writeFileSync(path.join(ws, "a.txt"), "one\ntwo\ntyped meanwhile\n"));
    expect(replaced.preview).toMatchObject({ old_text: "one\ntwo\n", new_text: "ONE\ntwo\n" });
    expect(replaced.result).toEqual({ content: line, isError: true });
    expect(onDisk("a.txt")).toBe("one\ntwo\ntyped meanwhile\n");

    const written = await previewThenRun(writeToFileTool, { path: "a.txt", content: "new\n" }, () => writeFileSync(path.join(ws, "a.txt"), "typed again\n"));
    expect(written.result).toEqual({ content: line, isError: true });
    expect(onDisk("a.txt")).toBe("typed again\n");

    // Controls: the same calls with the file left alone go ahead.
    expect((await previewThenRun(replaceInFileTool, { path: "a.txt", diff: block("typed again", "edited") }, () => {})).result.isError).toBeUndefined();
    expect(onDisk("a.txt")).toBe("edited\n");
    expect((await previewThenRun(writeToFileTool, { path: "a.txt", content: "rewritten\n" }, () => {})).result.isError).toBeUndefined();
    expect(onDisk("a.txt")).toBe("rewritten\n");
  });

  it("a file shown as new that appeared meanwhile is not overwritten; one shown that was deleted is not recreated", async () => {
    const created = await previewThenRun(writeToFileTool, { path: "b.txt", content: "mine\n" }, () => writeFileSync(path.join(ws, "b.txt"), "someone else's\n"));
    expect(created.preview).toMatchObject({ old_text: null });
    expect(created.result.isError).toBe(true);
    expect(onDisk("b.txt")).toBe("someone else's\n");

    const deleted = await previewThenRun(writeToFileTool, { path: "a.txt", content: "x\n" }, () => rmSync(path.join(ws, "a.txt")));
    expect(deleted.result.content).toContain("a.txt changed on disk");
    expect(() => onDisk("a.txt")).toThrow();
  });

  it("in the editor: the buffer the diff was shown from changed, nothing is written to the editor; unchanged, it is", async () => {
    const file = path.join(ws, "a.txt");
    buffers = new Map([[file, "buffer one\n"]]);
    const writes: string[] = [];
    ctx = { ...ctx, files: { readText: async (p) => buffers!.get(p) ?? readFileSync(p, "utf8"), writeText: async (p, text) => void writes.push(`${p}=${text}`) } };
    const changed = await previewThenRun(replaceInFileTool, { path: "a.txt", diff: block("buffer one", "edited") }, () => buffers!.set(file, "buffer one\ntyped while asked\n"));
    expect(changed.preview).toMatchObject({ old_text: "buffer one\n" });
    expect(changed.result).toEqual({ content: "a.txt changed in the editor after the person was shown this edit's diff, so nothing was written: read a.txt again and redo the edit.", isError: true });
    expect(writes).toEqual([]);

    const control = await previewThenRun(replaceInFileTool, { path: "a.txt", diff: block("typed while asked", "kept") }, () => {});
    expect(control.result.isError).toBeUndefined();
    expect(writes).toEqual([`${file}=buffer one\nkept\n`]);
    expect(onDisk("a.txt")).toBe("one\ntwo\n");
  });

  it("a call no preview read (none was computed) is not held to one", async () => {
    ctx = { ...ctx, previewed: undefined };
    writeFileSync(path.join(ws, "a.txt"), "changed\n");
    expect((await replaceInFileTool.execute(replaceInFileTool.parameters.parse({ path: "a.txt", diff: block("changed", "fine") }), ctx)).isError).toBeUndefined();
    expect(onDisk("a.txt")).toBe("fine\n");
  });
});
