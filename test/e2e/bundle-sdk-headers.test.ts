import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../support/cairn-cli.js";

/**
 * The bundle rewrites the AI SDK's withUserAgentSuffix and normalizeHeaders so a model request
 * never touches the global Headers (which loads Node's bundled undici; packages/cli/scripts/
 * plain-sdk-headers.mjs). Each installed copy of provider-utils is rewritten, and the rewritten
 * functions give the same headers, in the same order, as the originals, without Headers.
 */
type Rewrite = (text: string) => { text: string } | { error: string };
const script = path.join(repoRoot, "packages/cli/scripts/plain-sdk-headers.mjs");
const { withPlainHeaders } = (await import(script)) as { withPlainHeaders: Rewrite };

/** Every provider-utils the bundle may inline: the hoisted one and those nested under a provider. */
function providerUtilsCopies(): string[] {
  const sdk = path.join(repoRoot, "node_modules/@ai-sdk");
  const nested = readdirSync(sdk).map((name) => path.join(sdk, name, "node_modules/@ai-sdk/provider-utils"));
  return [path.join(sdk, "provider-utils"), ...nested]
    .map((folder) => path.join(folder, "dist/index.mjs"))
    .filter((file) => {
      try {
        return readFileSync(file).length > 0;
      } catch {
        return false;
      }
    });
}

/** A function's source from the dist file: from its `function` line to its closing brace. */
function source(text: string, name: string): string {
  const start = text.indexOf(`function ${name}(`);
  expect(start, name).toBeGreaterThan(-1);
  return text.slice(start, text.indexOf("\n}\n", start) + 2);
}

type Suffixed = (headers: unknown, ...parts: string[]) => Record<string, string>;

/** withUserAgentSuffix as the file has it; `Headers` is what the function sees under that name. */
function compiled(text: string, headersGlobal: unknown): Suffixed {
  const body = `${source(text, "normalizeHeaders")}\n${source(text, "withUserAgentSuffix")}\nreturn withUserAgentSuffix;`;
  return new Function("Headers", body)(headersGlobal) as Suffixed;
}

const inputs: unknown[] = [
  undefined,
  {},
  { "Content-Type": "application/json", "x-api-key": " k ", "anthropic-version": "2023-06-01", "anthropic-beta": "a,b" },
  { "User-Agent": " mine/1 ", authorization: "Bearer k", dropped: undefined, gone: null },
  [
    ["X-A", "1"],
    ["b", "2"],
  ],
  new Headers({ "X-From-Headers": "v", "user-agent": "ua" }),
];

describe("the bundle's plain-object AI SDK header helpers", () => {
  const copies = providerUtilsCopies();

  it("finds the installed provider-utils copies", () => {
    expect(copies.length).toBeGreaterThan(0);
  });

  it.each(copies.map((file) => [path.relative(repoRoot, file), file]))("%s: same headers, same order, no global Headers", (_name, file) => {
    const text = readFileSync(file, "utf8");
    const rewritten = withPlainHeaders(text);
    if ("error" in rewritten) throw new Error(rewritten.error);
    const original = compiled(text, Headers);
    // Any use of Headers in the rewritten functions would throw: it is not there.
    const plain = compiled(rewritten.text, undefined);
    for (const input of inputs) {
      const parts = ["ai-sdk/anthropic/3.0.138", "ai-sdk/provider-utils/4.0.64", "runtime/node.js/v20.20.2"];
      expect(Object.entries(plain(input, ...parts)), JSON.stringify(input)).toEqual(Object.entries(original(input, ...parts)));
    }
    // The positive control: the original does reach for Headers.
    expect(() => compiled(text, undefined)({ a: "1" })).toThrow(TypeError);
  });

  it("says in one line which function to look at when an SDK upgrade changed it", () => {
    const result = withPlainHeaders("function withUserAgentSuffix(headers) {}\n");
    expect(result).toEqual({ error: expect.stringMatching(/^@ai-sdk\/provider-utils changed normalizeHeaders: update its plain-object rewrite in packages\/cli\/scripts\/plain-sdk-headers\.mjs/) });
  });
});
