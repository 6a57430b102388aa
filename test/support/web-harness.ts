import { request } from "node:http";
import { chromiumArgs, findChromium } from "@cairn/core";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { afterAll, beforeAll } from "vitest";
import { cleanEnv, startCairn } from "./cairn-cli.js";

/** A running `cairn web`, its link split into the parts tests need. */
export type WebRun = {
  url: string;
  origin: string;
  host: string;
  port: number;
  token: string;
  stdout: () => string;
  stderr: () => string;
  stop: () => Promise<void>;
};

export async function startWeb(args: string[], options: { env: Record<string, string>; cwd?: string }): Promise<WebRun> {
  const cairn = startCairn(["web", ...args], options);
  const line = await cairn.waitForLine((l) => l.startsWith("Cairn is running at "), 20_000);
  const url = line.slice("Cairn is running at ".length).trim();
  const parsed = new URL(url);
  return {
    url,
    origin: parsed.origin,
    host: parsed.host,
    port: Number(parsed.port),
    // The printed link carries the token in its fragment (#token=…), which no browser sends to a server.
    token: new URLSearchParams(parsed.hash.slice(1)).get("token") ?? "",
    stdout: () => cairn.output().stdout,
    stderr: () => cairn.output().stderr,
    stop: async () => {
      if (cairn.child.exitCode === null) cairn.child.kill("SIGTERM");
      const timer = setTimeout(() => cairn.child.kill("SIGKILL"), 10_000);
      await cairn.exited;
      clearTimeout(timer);
    },
  };
}

/** `cairn web` on a workspace with the scripted model server as its model and `home` as CAIRN_HOME. */
export function startScriptedWeb(model: { url: string }, cwd: string, home: string, extra: string[] = []): Promise<WebRun> {
  return startWeb(["--provider", "anthropic", "--base-url", model.url, "--cwd", cwd, ...extra], { env: cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: home }) });
}

/** Debian's Chromium, launched once for a test file and closed after it; call the result inside a test. */
export function useChromium(): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    const found = await findChromium();
    if (!found.found) throw new Error(found.message);
    browser = await puppeteer.launch({ executablePath: found.path, headless: true, args: chromiumArgs() });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });
  return () => browser!;
}

export type RawResponse = { status: number; headers: Record<string, string | string[] | undefined>; body: string };

/**
 * An HTTP request with every header as given (fetch will not forge Host or send a foreign Origin
 * the way an attacking page's browser would). SSE answers are read for `readMs` and then cut.
 */
export function rawRequest(
  web: Pick<WebRun, "port">,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string; readMs?: number },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: web.port, method: options.method ?? "GET", path: options.path, headers: options.headers ?? {} }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (d: string) => (body += d));
      const done = () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      res.on("end", done);
      if (options.readMs !== undefined) {
        setTimeout(() => {
          res.destroy();
          done();
        }, options.readMs);
      }
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

/** Headers of a legitimate API call from the page: our Host and the token in its Authorization header. */
export function goodHeaders(web: WebRun, extra: Record<string, string> = {}): Record<string, string> {
  return { Host: web.host, Authorization: `Bearer ${web.token}`, ...extra };
}

/**
 * Clicks the button named `name` as a person would, once it is there: brought to the middle of the
 * view first, since the sticky status bar can cover a button at the bottom edge (a click there lands
 * on the bar), and found again for the click in case the page re-rendered it meanwhile.
 */
export async function pressButton(page: Page, name: string): Promise<void> {
  const selector = `::-p-aria([name="${name}"][role="button"])`;
  const button = await page.locator(selector).waitHandle();
  await button.evaluate((el) => el.scrollIntoView({ block: "center" }));
  await button.dispose();
  await page.locator(selector).click();
}
