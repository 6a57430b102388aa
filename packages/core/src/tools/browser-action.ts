import { fileURLToPath } from "node:url";
import { z } from "zod";
import { browserFor, type ActionOptions, type ActionResult, type BrowserSession, type FileAnswer, type FileGate, type PageView, type Viewport } from "../browser/index.js";
import type { ImagePart, TextPart } from "../model/types.js";
import { displayPath, realPath } from "../policy/workspace.js";
import { openChecked, refusalFor, type Boundary } from "./files/index.js";
import { defineTool, type ToolContext, type ToolResult } from "./tool.js";

const actions = ["launch", "click", "type", "scroll_down", "scroll_up", "close"] as const;
type Action = (typeof actions)[number];

const parameters = z.object({
  action: z
    .enum(actions)
    .describe("launch (open url, starting the browser), click (at coordinate), type (text), scroll_down, scroll_up, or close."),
  url: z.string().optional().describe("For launch: the page to open (http://, https:// or file://), e.g. http://localhost:3000."),
  coordinate: z
    .string()
    .optional()
    .describe('For click: where to click, as "x,y" in pixels of the latest screenshot (0,0 is its top-left corner), e.g. "450,203".'),
  text: z.string().optional().describe("For type: the text to type into the focused element; a line break presses Enter."),
});

type Input = z.infer<typeof parameters>;

const description = `Drive a headless Chromium browser to see and use a web page: check a page you built or a local dev server, reproduce a UI bug, follow a flow that needs clicks. Each call does one action and returns a screenshot of the page after it (900x600 pixels unless configured otherwise), the console logs and page errors since the previous action, and the current URL.
- Start with launch and a url; then one action per call, looking at each screenshot before the next. End with close (the browser also closes when the task ends).
- click: the coordinate "x,y" of the middle of the element, in pixels of the latest screenshot (0,0 is its top-left corner). Take positions from the screenshot; never guess.
- type: types into the focused element, so click the field first; a line break presses Enter.
- scroll_down / scroll_up: one screen height.
- launch again to open another url in the same browser; cookies and logins last until close.
- To read a page's text (docs, an article, an API response), web_fetch is faster.

Example:
<browser_action>
<action>launch</action>
<url>http://localhost:3000</url>
</browser_action>

<browser_action>
<action>click</action>
<coordinate>450,203</coordinate>
</browser_action>`;

export const browserActionTool = defineTool({
  name: "browser_action",
  description,
  brief: 'Drive a headless Chromium: launch a url, then click at "x,y" of the screenshot, type, scroll_down, scroll_up, close; each action returns a screenshot and console logs.',
  parameters,
  kind: "browser",
  modes: ["act"],
  access: () => [{ type: "none" }],
  summarize: (input) => {
    switch (input.action) {
      case "launch":
        return `browser launch ${input.url ?? ""}`.trimEnd();
      case "click":
        return `browser click ${input.coordinate ?? ""}`.trimEnd();
      case "type":
        return `browser type ${JSON.stringify(shorten(input.text ?? "", 40))}`;
      case "scroll_down":
        return "browser scroll down";
      case "scroll_up":
        return "browser scroll up";
      case "close":
        return "browser close";
    }
  },
  async execute(input, ctx) {
    if (ctx.signal.aborted) return failure("The browser action was not run: the task was stopped.");
    const session = browserFor(ctx);
    const options: ActionOptions = { signal: ctx.signal, withText: !ctx.modelSupportsImages, fileGate: workspaceFiles(ctx) };
    try {
      if (input.action === "close") {
        const wasRunning = await session.close();
        return { content: wasRunning ? "The browser is closed." : "The browser was not running; there was nothing to close." };
      }
      const call = plan(input, session.viewport);
      if (typeof call === "string") return failure(call);
      const refused = input.action === "launch" ? fileUrlRefusal(call.url, ctx) : undefined;
      if (refused !== undefined) return failure(refused);
      const result = await call.run(session, options);
      return present(result, call.heading, ctx.modelSupportsImages);
    } catch (error) {
      if (ctx.signal.aborted) return failure("The browser action was interrupted: the task was stopped. The browser is still open; launch, click or close it in a later call.");
      throw error;
    }
  },
});

type Call = { heading: string; url?: string; run: (session: BrowserSession, options: ActionOptions) => Promise<ActionResult> };

/** The validated call for one action, or what is wrong with its parameters. */
function plan(input: Input, viewport: Viewport): Call | string {
  const action: Exclude<Action, "close"> = input.action as Exclude<Action, "close">;
  switch (action) {
    case "launch": {
      const url = parseUrl(input.url);
      if (!url.ok) return url.message;
      return { heading: `Opened ${url.href}`, url: url.href, run: (session, options) => session.launch(url.href, options) };
    }
    case "click": {
      const point = parseCoordinate(input.coordinate, viewport);
      if (!point.ok) return point.message;
      return { heading: `Clicked at ${point.x},${point.y}`, run: (session, options) => session.click(point.x, point.y, options) };
    }
    case "type": {
      const text = input.text;
      if (text === undefined || text === "") return 'type needs text: the characters to type into the focused element, e.g. <text>hello@example.com</text>.';
      return { heading: `Typed ${JSON.stringify(shorten(text, 80))}`, run: (session, options) => session.type(text, options) };
    }
    case "scroll_down":
      return { heading: "Scrolled down", run: (session, options) => session.scroll("down", options) };
    case "scroll_up":
      return { heading: "Scrolled up", run: (session, options) => session.scroll("up", options) };
  }
}

/**
 * The browser opens local files by the same rules as read_file: by their real path (links and
 * /proc followed), never one .cairnignore blocks, and only inside the workspace (the browser
 * has no way to ask for more). The gate reads each file itself through a checked descriptor and
 * hands the bytes to the browser, for the page the model opens and everything that page loads.
 */
function workspaceFiles(ctx: ToolContext): FileGate {
  const boundary: Boundary = { cwd: ctx.cwd, ignore: ctx.ignore };
  return async (url: string): Promise<FileAnswer> => {
    const absolute = localPath(url);
    if (absolute === undefined) return { type: "refused", reason: "not a file on this machine" };
    const shown = displayPath(ctx.cwd, absolute);
    try {
      const opened = await openChecked(boundary, absolute, shown);
      if (!opened.ok) return { type: "refused", reason: opened.message };
      try {
        if (opened.stats.isDirectory()) return { type: "folder" };
        if (!opened.stats.isFile()) return { type: "refused", reason: `${shown} is not a regular file` };
        return { type: "file", body: await opened.handle.readFile(), path: opened.real };
      } finally {
        await opened.handle.close();
      }
    } catch {
      return { type: "missing" };
    }
  };
}

/** Why a file: url may not be opened, checked before the browser starts; undefined for other urls. */
function fileUrlRefusal(url: string | undefined, ctx: ToolContext): string | undefined {
  if (url === undefined || !url.startsWith("file:")) return undefined;
  const absolute = localPath(url);
  if (absolute === undefined) return `${url} is not a file on this machine; browser_action opens local files by their path, e.g. file:///path/to/page.html.`;
  const real = realPath(absolute);
  const shown = displayPath(ctx.cwd, absolute);
  if (real === undefined) return `${shown} is a loop of symlinks; it names no file.`;
  const refusal = refusalFor({ cwd: ctx.cwd, ignore: ctx.ignore }, absolute, real, shown, "read");
  if (refusal === undefined) return undefined;
  return ctx.ignore.ignores(absolute) ? refusal : `${shown} is outside the workspace; browser_action opens local files inside it only. Serve the page over http, or ask the user to copy it into the workspace.`;
}

function localPath(url: string): string | undefined {
  try {
    return fileURLToPath(url);
  } catch {
    return undefined; // a file url naming another host
  }
}

type ParsedUrl = { ok: true; href: string } | { ok: false; message: string };

/** Accepts what people type ("localhost:3000/docs") as well as full URLs. */
export function parseUrl(raw: string | undefined): ParsedUrl {
  const text = raw?.trim() ?? "";
  if (text === "") return { ok: false, message: "launch needs a url: the page to open, e.g. <url>http://localhost:3000</url>." };
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) || /^(about|file):/i.test(text) ? text : `http://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return { ok: false, message: `${text} is not a valid url. Give a full address, e.g. http://localhost:3000/page.` };
  }
  if (!["http:", "https:", "file:", "about:"].includes(url.protocol)) {
    return { ok: false, message: `browser_action opens http, https and file urls, not ${url.protocol} ones.` };
  }
  return { ok: true, href: url.href };
}

type ParsedPoint = { ok: true; x: number; y: number } | { ok: false; message: string };

export function parseCoordinate(raw: string | undefined, viewport: Viewport): ParsedPoint {
  const text = raw?.trim() ?? "";
  const size = `${viewport.width}x${viewport.height}`;
  if (text === "") return { ok: false, message: `click needs a coordinate: "x,y" in pixels of the latest screenshot (${size}), e.g. <coordinate>450,203</coordinate>.` };
  const match = /^\(?\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*\)?$/.exec(text);
  if (match === null) return { ok: false, message: `The coordinate "${text}" is not "x,y" (two numbers with a comma between them), e.g. 450,203.` };
  const x = Number(match[1]);
  const y = Number(match[2]);
  if (x < 0 || y < 0 || x >= viewport.width || y >= viewport.height) {
    return { ok: false, message: `The coordinate ${x},${y} is outside the ${size} screenshot. Give a point inside it (x from 0 to ${viewport.width - 1}, y from 0 to ${viewport.height - 1}); scroll to reach things further down.` };
  }
  return { ok: true, x, y };
}

function present(result: ActionResult, heading: string, withImage: boolean): ToolResult {
  if (!result.ok) return failure(result.message);
  const lines = [`${heading}.`, ...describe(result)];
  if (!withImage) {
    lines.push("", "[No screenshot: the current model cannot take images. The page's visible text:]", result.text || "(no text)");
    return { content: lines.join("\n") };
  }
  const { screenshot } = result;
  lines.push("", `Screenshot (${screenshot.width}x${screenshot.height} pixels; click coordinates are pixels of it):`);
  const parts: Array<TextPart | ImagePart> = [
    { type: "text", text: lines.join("\n") },
    { type: "image", mediaType: screenshot.mediaType, data: screenshot.data.toString("base64") },
  ];
  return { content: parts };
}

function describe(view: PageView): string[] {
  const lines = [`URL: ${view.url}`];
  if (view.title !== "") lines.push(`Title: ${view.title}`);
  if (view.mouse) lines.push(`Mouse position: ${view.mouse.x},${view.mouse.y}`);
  lines.push(`Scroll position: ${view.scroll.y} px from the top of a page ${view.scroll.height} px tall`);
  for (const note of view.notes) lines.push(`Note: ${note}`);
  if (view.logs.length === 0) lines.push("Console logs: (none since the last action)");
  else lines.push("Console logs:", ...view.logs);
  return lines;
}

function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function failure(content: string): ToolResult {
  return { content, isError: true };
}
