import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeDocx, makePdf, onePixelPng } from "../../../../test/support/documents.js";
import { readFileTool } from "./read-file.js";
import { testContext } from "./test-context.js";

let ws: string;
beforeEach(() => {
  ws = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-docs-")));
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

const text = (content: unknown) => (typeof content === "string" ? content : JSON.stringify(content));

describe("read_file on documents and images", () => {
  it("returns the text of a PDF, page by page", async () => {
    writeFileSync(path.join(ws, "report.pdf"), makePdf(["Quarterly revenue grew (a lot)", "Second page text"]));
    const result = await readFileTool.execute({ path: "report.pdf" }, testContext(ws));
    expect(result.isError).toBeFalsy();
    expect(text(result.content)).toContain("[Text extracted from report.pdf]");
    expect(text(result.content)).toMatch(/--- page 1 ---\nQuarterly revenue grew \(a lot\)/);
    expect(text(result.content)).toMatch(/--- page 2 ---\nSecond page text/);
  });

  it("returns the text of a DOCX, with line windows and numbers on request", async () => {
    writeFileSync(path.join(ws, "spec.docx"), makeDocx(["Title: the spec", "First requirement & more", "Second requirement"]));
    const whole = await readFileTool.execute({ path: "spec.docx" }, testContext(ws));
    expect(text(whole.content)).toContain("First requirement & more");
    const windowed = await readFileTool.execute({ path: "spec.docx", start_line: 5, end_line: 5, line_numbers: true }, testContext(ws));
    expect(text(windowed.content)).toMatch(/^\[Text extracted from spec.docx\]\n5 \| Second requirement\n\[Showing lines 5-5 of \d+\.\]$/);
  });

  it("explains a damaged document instead of failing the task", async () => {
    writeFileSync(path.join(ws, "broken.pdf"), "%PDF-1.4 this is not really a pdf");
    const result = await readFileTool.execute({ path: "broken.pdf" }, testContext(ws));
    expect(result.isError).toBe(true);
    expect(text(result.content)).toMatch(/Could not extract text from broken.pdf/);
  });

  it("returns an image as a picture for models that take images, and refuses it otherwise", async () => {
    writeFileSync(path.join(ws, "dot.png"), onePixelPng);
    const seen = await readFileTool.execute({ path: "dot.png" }, testContext(ws));
    expect(Array.isArray(seen.content)).toBe(true);
    expect(seen.content).toContainEqual({ type: "image", mediaType: "image/png", data: onePixelPng.toString("base64") });
    const blind = await readFileTool.execute({ path: "dot.png" }, testContext(ws, { modelSupportsImages: false }));
    expect(blind.isError).toBe(true);
    expect(text(blind.content)).toMatch(/cannot take images/);
  });

  it("numbers the lines of a text file on request", async () => {
    writeFileSync(path.join(ws, "a.txt"), Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join("\n") + "\n");
    const result = await readFileTool.execute({ path: "a.txt", start_line: 9, end_line: 10, line_numbers: true }, testContext(ws));
    expect(result.content).toBe(" 9 | line 9\n10 | line 10\n[Showing lines 9-10 of 12.]");
  });
});
