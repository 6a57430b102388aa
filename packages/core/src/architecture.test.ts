import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

/**
 * The design's arrows, measured on the code (ARCHITECTURE.md): no two folders of core import each
 * other (directly or round a longer loop), and the arrows the design forbids do not exist. Test files
 * and test helpers are left out: they may reach across to set a scene.
 */
const root = path.dirname(fileURLToPath(import.meta.url));
const testHelpers = new Set(["test-support.ts", "test-servers.ts", "test-context.ts"]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    const source = /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) && !testHelpers.has(entry.name);
    return source ? [full] : [];
  });
}

/** folder -> folder -> the files that make the arrow. */
function folderGraph(): Map<string, Map<string, string[]>> {
  const graph = new Map<string, Map<string, string[]>>();
  for (const file of sourceFiles(root)) {
    const from = path.relative(root, file).split(path.sep);
    if (from.length < 2) continue;
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(/(?:from\s+|import\s*\(\s*)"(\.[^"]+)"/g)) {
      const target = path.relative(root, path.resolve(path.dirname(file), match[1]!)).split(path.sep);
      if (target.length < 2 || target[0] === from[0] || target[0] === "..") continue;
      const arrows = graph.get(from[0]!) ?? new Map<string, string[]>();
      arrows.set(target[0]!, [...(arrows.get(target[0]!) ?? []), path.relative(root, file)]);
      graph.set(from[0]!, arrows);
    }
  }
  return graph;
}

/** Loops of folders: for each folder, the folders it reaches that reach it back. */
function cycles(graph: Map<string, Map<string, string[]>>): string[] {
  const reach = (start: string): Set<string> => {
    const seen = new Set<string>();
    const stack = [start];
    while (stack.length > 0) {
      for (const next of graph.get(stack.pop()!)?.keys() ?? []) {
        if (seen.has(next)) continue;
        seen.add(next);
        stack.push(next);
      }
    }
    return seen;
  };
  const found: string[] = [];
  for (const [from, arrows] of graph) {
    for (const [to, files] of arrows) {
      if (reach(to).has(from)) found.push(`${from} -> ${to} (${[...new Set(files)].join(", ")}) is part of a loop`);
    }
  }
  return found.sort();
}

it("no two folders of core import each other, round any loop", () => {
  expect(cycles(folderGraph())).toEqual([]);
});

it("the arrows the design forbids do not exist", () => {
  const graph = folderGraph();
  const forbidden: Array<[string, string]> = [
    ["storage", "runtime"],
    ["policy", "tools"],
    ["policy", "model"],
    ["tools", "runtime"],
    ["protocol", "runtime"],
    ["events", "runtime"],
  ];
  const present = forbidden.filter(([from, to]) => graph.get(from)?.has(to)).map(([from, to]) => `${from} -> ${to}: ${graph.get(from)!.get(to)!.join(", ")}`);
  expect(present).toEqual([]);
});

it("core imports no host", () => {
  const hosts = sourceFiles(root).filter((file) => /from\s+"(?:cairn|@cairn\/(?:web|cli))[/"]|\.\.\/\.\.\/\.\.\/(?:cli|web)\//.test(readFileSync(file, "utf8")));
  expect(hosts.map((file) => path.relative(root, file))).toEqual([]);
});

it("the measurement sees the arrows that do exist (runtime uses policy, session uses runtime)", () => {
  const graph = folderGraph();
  expect(graph.get("runtime")?.has("policy")).toBe(true);
  expect(graph.get("session")?.has("runtime")).toBe(true);
});

/** Every module specifier a file imports or re-exports, with whether the import is of types only. */
function importsOf(file: string): Array<{ from: string; typeOnly: boolean }> {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/^(import|export)\s+(type\s+)?[^;]*?from\s+"([^"]+)"/gms), ...text.matchAll(/import\s*\(\s*"([^"]+)"/g)].map((m) =>
    m.length === 2 ? { from: m[1]!, typeOnly: false } : { from: m[3]!, typeOnly: m[2] !== undefined },
  );
}

it("@cairn/core/diff runs in a browser: the diff hosts show imports nothing but the line diff, which imports nothing", () => {
  const edit = path.join(root, "tools", "edit");
  expect(importsOf(path.join(edit, "diff-hunks.ts"))).toEqual([{ from: "./line-diff.js", typeOnly: false }]);
  expect(importsOf(path.join(edit, "line-diff.ts"))).toEqual([]);
});

it("the transcript runs in a browser: it imports nothing but its own files and events/ (whose code it runs imports only types)", () => {
  const transcript = path.join(root, "transcript");
  const reached = new Set<string>();
  const wrong: string[] = [];
  const visit = (file: string) => {
    if (reached.has(file)) return;
    reached.add(file);
    for (const { from, typeOnly } of importsOf(file)) {
      const target = from.startsWith(".") ? path.resolve(path.dirname(file), from).replace(/\.js$/, ".ts") : undefined;
      const inside = target !== undefined && (target.startsWith(`${transcript}${path.sep}`) || target.startsWith(path.join(root, "events") + path.sep));
      if (typeOnly && target !== undefined) continue;
      if (!inside) wrong.push(`${path.relative(root, file)} imports ${from}`);
      else visit(target);
    }
  };
  for (const file of sourceFiles(transcript)) visit(file);
  expect(wrong).toEqual([]);
  // The rule reads the imports it should: the fold runs events/' card reducer.
  expect(reached.has(path.join(root, "events", "tool-call-record.ts"))).toBe(true);
});
