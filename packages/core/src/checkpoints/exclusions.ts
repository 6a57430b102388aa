import { readFileSync } from "node:fs";
import path from "node:path";
import { ignoreFileNames } from "../policy/ignore-rules.js";

/**
 * Folders that hold installed dependencies, build output, caches and virtualenvs: large, regenerated
 * by tools, and the reason Cline's shadow repos grew to hundreds of GB. Matched at any depth.
 */
export const heavyDirectories = [
  "node_modules",
  "bower_components",
  "jspm_packages",
  ".pnpm-store",
  ".yarn/cache",
  "dist",
  "build",
  "out",
  "target",
  ".next",
  ".nuxt",
  ".svelte-kit",
  ".turbo",
  ".parcel-cache",
  ".vite",
  ".cache",
  "coverage",
  ".nyc_output",
  "__pycache__",
  ".pytest_cache",
  ".mypy_cache",
  ".ruff_cache",
  ".tox",
  ".venv",
  "venv",
  ".gradle",
  ".terraform",
  "Pods",
  "DerivedData",
  ".dart_tool",
] as const;

/** Binary, media, archive, database and model-weight files, by extension (matched case-insensitively). */
export const heavyExtensions = [
  // images
  "png", "jpg", "jpeg", "gif", "bmp", "ico", "icns", "webp", "tif", "tiff", "psd", "heic", "avif",
  // video and audio
  "mp4", "mov", "avi", "mkv", "webm", "wmv", "flv", "m4v", "mpg", "mpeg",
  "mp3", "wav", "ogg", "flac", "m4a", "aac", "wma", "opus",
  // archives and packages
  "zip", "tar", "gz", "tgz", "bz2", "xz", "zst", "7z", "rar", "jar", "war", "ear", "iso", "dmg", "deb", "rpm", "msi", "apk",
  // compiled code
  "so", "dll", "dylib", "exe", "o", "a", "obj", "lib", "class", "pyc", "pyo", "wasm", "node",
  // databases
  "sqlite", "sqlite3", "db", "mdb",
  // fonts and documents
  "woff", "woff2", "ttf", "otf", "eot", "pdf",
  // data sets and model weights
  "parquet", "npy", "npz", "h5", "hdf5", "pkl", "pickle", "pt", "pth", "onnx", "safetensors", "ckpt", "tfrecord",
  // logs
  "log",
] as const;

/** Never checkpointed: secrets (`.env`, `.env.local`, ...) and OS litter. */
export const alwaysExcluded = [".env*", ".DS_Store"] as const;

/** `png` → `*.[pP][nN][gG]`: gitignore matching is case-sensitive on Linux. */
function anyCase(extension: string): string {
  const letters = [...extension].map((c) => (c.toLowerCase() === c.toUpperCase() ? c : `[${c.toLowerCase()}${c.toUpperCase()}]`));
  return `*.${letters.join("")}`;
}

/** A gitignore pattern that matches exactly this workspace-relative path (posix separators). */
export function literalPattern(relativePath: string): string {
  let escaped = relativePath.replace(/[\\*?[\]]/g, (c) => `\\${c}`);
  if (/\s$/.test(escaped)) escaped = escaped.replace(/(\s)$/, "\\$1");
  return `/${escaped}`;
}

/** The part of the exclude file an ignore file may override: heavy folders and heavy extensions. */
export function defaultExcludeRules(): string[] {
  return [...heavyDirectories.map((dir) => `${dir}/`), ...heavyExtensions.map(anyCase)];
}

export type ExcludeInputs = {
  /** Contents of the workspace's .cairnignore / .clineignore, in that order (missing files skipped). */
  ignoreFiles: readonly string[];
  /** Workspace-relative paths left out because they are larger than the size limit. */
  largeFiles: readonly string[];
  /** Workspace-relative folders that must never be snapshotted (the checkpoint store itself, if inside). */
  ownFolders: readonly string[];
};

/**
 * The shadow repository's `info/exclude`. Git applies it together with the workspace's own
 * .gitignore files (which take precedence, so a `!pattern` there re-includes a file), so the
 * shadow repo checkpoints what the person would commit, minus heavy artefacts and secrets.
 * Rules from .cairnignore come after the defaults: a `!dist/` line in it brings dist back. Secrets
 * come after the ignore files, so no line there (a `!.env` in a .clineignore a command created)
 * brings a secret into the store.
 */
export function excludeFileContent(inputs: ExcludeInputs): string {
  const lines = [
    "# Written by Cairn at each checkpoint; edits are overwritten. Put rules in .cairnignore instead.",
    ...defaultExcludeRules(),
    ...inputs.ownFolders.map((folder) => `${literalPattern(folder)}/`),
    ...inputs.ignoreFiles.flatMap((text) => text.split(/\r?\n/)),
    ...alwaysExcluded,
    // Size limits come last so that no rule from .cairnignore can bring a huge file back.
    ...inputs.largeFiles.filter((file) => !file.includes("\n")).map(literalPattern),
  ];
  return `${lines.join("\n")}\n`;
}

/** Reads .cairnignore and .clineignore from the workspace root; each checkpoint calls it afresh (two small reads, synchronous). */
export function readIgnoreFilesSync(workspace: string): string[] {
  return ignoreFileNames.flatMap((name) => {
    try {
      return [readFileSync(path.join(workspace, name), "utf8")];
    } catch {
      return [];
    }
  });
}

/**
 * `info/attributes`, which overrides every .gitattributes in the workspace: no end-of-line
 * conversion, clean/smudge filters, ident or re-encoding, so a restored file has exactly the bytes
 * it had when it was checkpointed (and no LFS or other filter program ever runs).
 */
export const attributesFileContent = "* -text -crlf -eol -ident -filter -working-tree-encoding\n";
