import { readFileSync } from "node:fs";

/**
 * The AI SDK's provider-utils builds every request's headers with the global Headers
 * (withUserAgentSuffix) and asks `instanceof Headers` of them (normalizeHeaders). Touching that
 * global loads Node's bundled undici, ~28 ms of CPU that Cairn's model requests otherwise never
 * pay (core's model/http-fetch.ts). Both become plain-object equivalents with the same output:
 * names lowercase and sorted as Headers iterates them, values trimmed as Headers trims them, the
 * user-agent suffix joined by spaces (http-fetch checks the values as fetch did). If an SDK
 * upgrade changed either function, the build stops and says which, so the rewrite is looked at again.
 */
export const providerUtilsHeaders = [
  {
    name: "normalizeHeaders",
    from: "  if (headers instanceof Headers) {\n",
    to: '  if (!Array.isArray(headers) && typeof headers.forEach === "function" && typeof headers.get === "function") {\n',
  },
  {
    name: "withUserAgentSuffix",
    from: `function withUserAgentSuffix(headers, ...userAgentSuffixParts) {
  const normalizedHeaders = new Headers(normalizeHeaders(headers));
  const currentUserAgentHeader = normalizedHeaders.get("user-agent") || "";
  normalizedHeaders.set(
    "user-agent",
    [currentUserAgentHeader, ...userAgentSuffixParts].filter(Boolean).join(" ")
  );
  return Object.fromEntries(normalizedHeaders.entries());
}`,
    to: `function withUserAgentSuffix(headers, ...userAgentSuffixParts) {
  const trim = (value) => String(value).replace(/^[\\t\\n\\r ]+|[\\t\\n\\r ]+$/g, "");
  const normalizedHeaders = normalizeHeaders(headers);
  const currentUserAgentHeader = trim(normalizedHeaders["user-agent"] ?? "");
  normalizedHeaders["user-agent"] = [currentUserAgentHeader, ...userAgentSuffixParts].filter(Boolean).join(" ");
  return Object.fromEntries(
    Object.entries(normalizedHeaders)
      .map(([name, value]) => [name, trim(value)])
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  );
}`,
  },
];

export const plainSdkHeaders = {
  name: "plain-sdk-headers",
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/]@ai-sdk[\\/]provider-utils[\\/]dist[\\/]index\.mjs$/ }, (args) => {
      const rewritten = withPlainHeaders(readFileSync(args.path, "utf8"));
      return "error" in rewritten ? { errors: [{ text: rewritten.error }] } : { contents: rewritten.text, loader: "js" };
    });
  },
};

/** provider-utils' dist/index.mjs with both functions rewritten, or the one line saying which changed. */
export function withPlainHeaders(text) {
  for (const { name, from, to } of providerUtilsHeaders) {
    if (!text.includes(from)) {
      return { error: `@ai-sdk/provider-utils changed ${name}: update its plain-object rewrite in packages/cli/scripts/plain-sdk-headers.mjs (it keeps the global Headers, and so undici, off the model requests)` };
    }
    text = text.replace(from, to);
  }
  return { text };
}
