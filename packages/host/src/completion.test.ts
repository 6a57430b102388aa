import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { completionsAt, FileIndex, type SlashCommand } from "./completion.js";

const slashCommands: readonly SlashCommand[] = [
  { name: "help", args: "", description: "keys and commands" },
  { name: "mode", args: "[act|plan]", description: "switch between Act and Plan" },
  { name: "model", args: "[id]", description: "show the model, or switch to another" },
  { name: "checkpoints", args: "[diff|restore] [n]", description: "list, compare or restore checkpoints" },
  { name: "clear", args: "", description: "start over with a new, empty task" },
];

let dir: string;

beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-complete-")));
  mkdirSync(path.join(dir, "src/components"), { recursive: true });
  mkdirSync(path.join(dir, "node_modules/pkg"), { recursive: true });
  for (const file of ["src/app.ts", "src/components/button.tsx", "README.md", "secret.env", "my notes.md", "node_modules/pkg/index.js"]) {
    writeFileSync(path.join(dir, file), "x");
  }
  writeFileSync(path.join(dir, ".cairnignore"), "secret.env\n");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function filesOf(cwd: string): Promise<FileIndex> {
  const index = new FileIndex(cwd);
  await index.load();
  return index;
}

describe("slash completion", () => {
  it("completes command names at the start of the message", () => {
    const c = completionsAt("/ch", 3, slashCommands, undefined);
    expect(c?.items.map((i) => i.replacement)).toEqual(["/checkpoints "]);
    expect(c?.from).toBe(0);
  });

  it("lists every command for a bare slash, and nothing once an argument starts", () => {
    expect(completionsAt("/", 1, slashCommands, undefined)?.items).toHaveLength(slashCommands.length);
    expect(completionsAt("/mode pl", 8, slashCommands, undefined)).toBeUndefined();
    expect(completionsAt("see /mo", 7, slashCommands, undefined)).toBeUndefined();
  });
});

describe("@ completion", () => {
  it("lists workspace files as mentions the task understands, without ignored or vendored files", async () => {
    const files = await filesOf(dir);
    expect(files.paths).toContain("src/components/button.tsx");
    expect(files.paths).toContain("src/");
    expect(files.paths).not.toContain("secret.env");
    expect(files.paths.some((p) => p.startsWith("node_modules"))).toBe(false);
    const text = "look at @src/ap please";
    const c = completionsAt(text, "look at @src/ap".length, slashCommands, files)!;
    expect(c.items[0]!.replacement).toBe("@/src/app.ts");
    expect(text.slice(0, c.from) + c.items[0]!.replacement + text.slice(c.to)).toBe("look at @/src/app.ts please");
    expect(completionsAt("see @src/ap", 11, slashCommands, files)!.items[0]!.replacement).toBe("@/src/app.ts ");
  });

  it("matches on the file name too; folders get no trailing space (to go on typing); spaces are quoted", async () => {
    const files = await filesOf(dir);
    expect(completionsAt("@button", 7, slashCommands, files)!.items[0]!.replacement).toBe("@/src/components/button.tsx ");
    expect(completionsAt("@/src/comp", 10, slashCommands, files)!.items[0]!.replacement).toBe("@/src/components/");
    expect(completionsAt("@my", 3, slashCommands, files)!.items[0]!.replacement).toBe('@"my notes.md" ');
  });

  it("does not treat e-mail addresses as mentions", async () => {
    const files = await filesOf(dir);
    expect(completionsAt("mail me@src", 11, slashCommands, files)).toBeUndefined();
  });

  it("stops listing at its limit instead of walking a huge tree", async () => {
    const files = new FileIndex(dir, 3);
    await files.load();
    expect(files.paths).toHaveLength(3);
  });
});
