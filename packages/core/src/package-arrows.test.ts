import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

/**
 * The packages' arrows, measured on the code (ARCHITECTURE.md: packages point one way). Core is the
 * SDK and builds on none of them; @cairn/host holds what the hosts share and builds on core only;
 * the web page and its server build on core and host, never on the `cairn` command; the command
 * builds on all three (it starts `cairn web`). A package that reached back would be a cycle again:
 * the web package once imported 18 of the command's internals while the command loaded it by name.
 * Every file counts, tests included, and a path into another package's folder counts as an import
 * of that package.
 */
const packagesDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

const packages = {
  core: { name: "@cairn/core", folders: ["src"], allowed: [] },
  host: { name: "@cairn/host", folders: ["src"], allowed: ["core"] },
  web: { name: "@cairn/web", folders: ["src", "client/src"], allowed: ["core", "host"] },
  cli: { name: "cairn", folders: ["src", "scripts", "bin"], allowed: ["core", "host", "web"] },
} as const;
type PackageKey = keyof typeof packages;
const keys = Object.keys(packages) as PackageKey[];

function files(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" || entry.name === "dist" ? [] : files(full);
    return /\.(ts|tsx|mts|js|mjs)$/.test(entry.name) ? [full] : [];
  });
}

/** Every module a file names: `from "x"`, `import "x"`, `import("x")`; comments left out. */
function specifiers(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  return [...code.matchAll(/\bfrom\s*["']([^"']+)["']|^\s*import\s*["']([^"']+)["']|\bimport\s*\(\s*["']([^"']+)["']\s*\)/gm)].map((m) => (m[1] ?? m[2] ?? m[3])!);
}

/** The workspace package a specifier names, if any: by package name, or by a path into its folder. */
function packageOf(specifier: string, fromFile: string): PackageKey | undefined {
  if (specifier.startsWith(".") || path.isAbsolute(specifier)) {
    const target = path.relative(packagesDir, path.resolve(path.dirname(fromFile), specifier)).split(path.sep)[0];
    return keys.find((key) => key === target);
  }
  const name = specifier.split("/").slice(0, specifier.startsWith("@") ? 2 : 1).join("/");
  return keys.find((key) => packages[key].name === name);
}

/** package -> package -> "file: specifier" for each import across packages. */
function arrows(): Map<PackageKey, Map<PackageKey, string[]>> {
  const found = new Map<PackageKey, Map<PackageKey, string[]>>();
  for (const from of keys) {
    for (const folder of packages[from].folders) {
      for (const file of files(path.join(packagesDir, from, folder))) {
        for (const specifier of specifiers(readFileSync(file, "utf8"))) {
          const to = packageOf(specifier, file);
          if (to === undefined || to === from) continue;
          const byTarget = found.get(from) ?? new Map<PackageKey, string[]>();
          byTarget.set(to, [...(byTarget.get(to) ?? []), `${path.relative(packagesDir, file)}: "${specifier}"`]);
          found.set(from, byTarget);
        }
      }
    }
  }
  return found;
}

it("no package imports one it must not build on: core none, host core, web core and host, never the cairn command", () => {
  const found = arrows();
  const forbidden = keys.flatMap((from) =>
    [...(found.get(from) ?? new Map<PackageKey, string[]>())]
      .filter(([to]) => !(packages[from].allowed as readonly PackageKey[]).includes(to))
      .flatMap(([to, where]) => where.map((line) => `${from} -> ${to}: ${line}`)),
  );
  expect(forbidden).toEqual([]);
  // The positive control: the scan sees the arrows that do exist.
  expect(found.get("web")?.has("core")).toBe(true);
  expect(found.get("web")?.has("host")).toBe(true);
  expect(found.get("cli")?.has("host")).toBe(true);
});

it("each package's manifest names only the workspace packages it may build on", () => {
  const declared = keys.flatMap((key) => {
    const manifest = JSON.parse(readFileSync(path.join(packagesDir, key, "package.json"), "utf8")) as Record<string, Record<string, string> | undefined>;
    const names = Object.keys({ ...manifest.dependencies, ...manifest.devDependencies, ...manifest.peerDependencies });
    return names
      .map((name) => keys.find((other) => packages[other].name === name))
      .filter((other): other is PackageKey => other !== undefined && !(packages[key].allowed as readonly PackageKey[]).includes(other))
      .map((other) => `${packages[key].name} depends on ${packages[other].name}`);
  });
  expect(declared).toEqual([]);
});
