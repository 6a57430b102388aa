/**
 * Real texts of the kinds a conversation carries, from this repository and its node_modules, to
 * compare the token estimate with exact counts: source code in several languages, prose, JSON,
 * the system prompt, minified JavaScript and non-Latin text. Two disjoint sets: one the estimate's
 * weights are calibrated on (bench/calibrate-token-estimate.ts), one it is judged on
 * (context/token-estimate.test.ts, bench/tokens.ts).
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { repoRoot } from "./cairn-cli.js";

export type CorpusText = { name: string; kind: string; text: string };

const MAX_CHARS = 24_000;

function read(file: string): string {
  const full = path.join(repoRoot, file);
  if (!existsSync(full)) throw new Error(`token corpus: ${file} is missing; run npm install, or update test/support/token-corpus.ts`);
  return readFileSync(full, "utf8");
}

/** At most MAX_CHARS from `offset`, cut at a line end (or, in a minified file, a mark) so no word is split. */
function slice(text: string, offset = 0): string {
  const from = offset === 0 ? 0 : cut(text, offset);
  if (text.length - from <= MAX_CHARS) return text.slice(from);
  return text.slice(from, cut(text, from + MAX_CHARS));
}

/** The end of the last line (or statement) that starts before `at`. */
function cut(text: string, at: number): number {
  const line = text.lastIndexOf("\n", at - 1);
  if (line > at - MAX_CHARS / 2) return line + 1;
  const mark = Math.max(text.lastIndexOf(";", at - 1), text.lastIndexOf(",", at - 1));
  return mark + 1;
}

function file(kind: string, name: string, offset = 0): CorpusText {
  return { name, kind, text: slice(read(name), offset) };
}

/**
 * TypeScript's own compiler messages in one language, as a model would read them: one per line.
 * The evaluation takes the first messages, calibration some from the second half.
 */
function messages(locale: string, part: "first" | "second half" = "first"): CorpusText {
  const name = `node_modules/typescript/lib/${locale}/diagnosticMessages.generated.json`;
  const text = Object.values(JSON.parse(read(name)) as Record<string, string>).join("\n");
  return { name, kind: `prose (${locale})`, text: slice(text, part === "first" ? 0 : Math.floor(text.length / 2)) };
}

/** The sample program in a code-outline language test (the real code the outline is tested on). */
function outlineSample(language: string): CorpusText {
  const name = `packages/core/src/tools/code-outline/languages/${language}.test.ts`;
  const source = /const source = `([\s\S]*?)`;/.exec(read(name))?.[1];
  if (source === undefined) throw new Error(`token corpus: no sample program in ${name}`);
  return { name, kind: `code (${language})`, text: source };
}

/** Judged on: never used for calibration. */
export function evaluationCorpus(): CorpusText[] {
  return [
    file("code (TypeScript)", "packages/core/src/runtime/task.ts"),
    file("code (JavaScript)", "node_modules/ignore/index.js"),
    file("code (C)", "node_modules/bare-fs/binding.c"),
    file("code (C++)", "node_modules/yoga-layout/src/Node.cpp"),
    file("code (C header)", "node_modules/node-addon-api/napi.h"),
    ...["python", "go", "rust", "java", "ruby", "csharp"].map(outlineSample),
    file("prose (Markdown with code)", "README.md"),
    file("prose (legal)", "node_modules/typescript/LICENSE.txt"),
    file("JSON (package manifest)", "node_modules/zod/package.json"),
    file("JSON (lockfile)", "package-lock.json", 40_000),
    file("system prompt (xml)", "packages/core/src/prompt/__snapshots__/system-prompt.act.xml.txt"),
    file("system prompt (native)", "packages/core/src/prompt/__snapshots__/system-prompt.act.native.txt"),
    file("minified JavaScript", "node_modules/jszip/dist/jszip.min.js"),
    messages("zh-cn"),
    messages("ja"),
    messages("ko"),
    messages("ru"),
    messages("de"),
    messages("fr"),
  ];
}

/** Calibrated on: the same kinds of text, other files. */
export function calibrationCorpus(): CorpusText[] {
  return [
    file("code (TypeScript)", "packages/core/src/mcp/hub.ts"),
    file("code (TypeScript)", "packages/core/src/runtime/execute-call.ts"),
    file("code (TSX)", "packages/cli/src/tui/app.tsx"),
    file("code (JavaScript)", "node_modules/zod/v4/classic/schemas.js"),
    file("code (JavaScript)", "node_modules/ajv/dist/compile/index.js"),
    file("code (C)", "node_modules/bare-buffer/binding.c"),
    file("code (C++)", "node_modules/yoga-layout/src/embind.cpp"),
    file("code (C header)", "node_modules/node-addon-api/napi-inl.h", 100_000),
    ...["c", "cpp", "javascript", "typescript"].map(outlineSample),
    file("prose (Markdown)", "node_modules/ink/readme.md"),
    file("prose (Markdown)", "node_modules/ajv/README.md"),
    file("prose (legal)", "node_modules/typescript/ThirdPartyNoticeText.txt"),
    file("JSON (package manifest)", "node_modules/vitest/package.json"),
    file("JSON (lockfile)", "package-lock.json", 90_000),
    file("system prompt (plan)", "packages/core/src/prompt/__snapshots__/system-prompt.plan.xml.txt"),
    file("minified JavaScript", "node_modules/source-map/dist/source-map.min.js"),
    file("minified JavaScript", "node_modules/glob/dist/esm/index.min.js"),
    ...["zh-tw", "es", "it", "pl", "cs", "tr", "pt-br"].map((l) => messages(l)),
    ...["zh-cn", "ja", "ko", "ru", "de", "fr"].map((l) => messages(l, "second half")),
    ...["zh_CN", "zh_TW", "ja", "ko", "ru", "hi", "th"].map((l) => file(`JSON (locale ${l})`, `node_modules/yargs/locales/${l}.json`)),
  ];
}
