import { createRequire } from "node:module";
import type TurndownService from "turndown";

let Turndown: typeof TurndownService | undefined;

/** Page text as Markdown: no scripts, styles, navigation, forms or embedded media. */
export function htmlToMarkdown(html: string): string {
  // Turndown and its DOM (domino) are CommonJS, so they can be required here, on first use, and the
  // function stays synchronous; they are not loaded with the agent.
  Turndown ??= createRequire(import.meta.url)("turndown") as typeof TurndownService;
  const turndown = new Turndown({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" });
  turndown.remove(["script", "style", "nav", "noscript", "template", "iframe", "svg", "canvas", "head", "title", "form", "button", "select"] as TurndownService.Filter);
  const body = /<body[^>]*>([\s\S]*)<\/body>/i.exec(html)?.[1] ?? html;
  return turndown
    .turndown(body)
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
