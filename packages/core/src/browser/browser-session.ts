import type { Browser, Page } from "puppeteer-core";
import { startChromium, type Chromium, type ChromiumLaunch } from "./chromium-process.js";
import { gateFileRequests, type FileGate } from "./file-requests.js";
import { PageLog, type PageLogLimits } from "./page-log.js";
import { readPageFacts, type PageFacts } from "./page-facts.js";
import { TimeoutError, untilAborted, withinTime } from "./waiting.js";

export type Viewport = { width: number; height: number };

export type BrowserTiming = {
  /** Starting Chromium. */
  launchTimeoutMs: number;
  /** A launch's page load ("load" event); after it the page is shown as far as it got. */
  loadTimeoutMs: number;
  /** After each action, waiting for the network to go quiet stops after this long. */
  settleTimeoutMs: number;
  /** The network counts as quiet after this long without a request in flight. */
  idleMs: number;
  /** A click, key presses or a screenshot of a page that stopped responding (a script in a loop). */
  responseTimeoutMs: number;
};

export const defaultBrowserTiming: BrowserTiming = {
  launchTimeoutMs: 30_000,
  loadTimeoutMs: 15_000,
  settleTimeoutMs: 5_000,
  idleMs: 500,
  responseTimeoutMs: 10_000,
};

export const defaultViewport: Viewport = { width: 900, height: 600 };

/**
 * A fixed screenshot format. Without one, each screenshot is taken as lossless WebP and as WebP
 * at quality 90, and the smaller is kept: lossless wins on pages dense with text (20 KB against
 * 69 KB lossy and 77 KB as PNG), where exact pixels also keep small text legible; lossy wins on
 * sparse pages and pictures (2 KB against Chromium's 40 KB lossless for a heading on white; 9 KB
 * against 126 KB for a gradient). The second encoding costs 30-100 ms.
 */
export type ScreenshotFormat = { type: "webp" | "jpeg" | "png"; quality?: number };

export type BrowserSessionOptions = {
  viewport?: Viewport;
  /** The Chromium to run; found with findChromium() (CAIRN_CHROMIUM_PATH, PATH, usual places) when absent. */
  chromiumPath?: string;
  /** Where findChromium() reads CAIRN_CHROMIUM_PATH and PATH; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  timing?: Partial<BrowserTiming>;
  /** Omit for WebP, lossless or lossy, whichever is smaller. */
  screenshot?: ScreenshotFormat;
  logLimits?: Partial<PageLogLimits>;
  /** The network namespace of the task's commands, when they run in one: the browser starts inside it (chromium-process.ts). */
  network?: ChromiumLaunch["network"];
};

export type ActionOptions = {
  /** Aborting stops the waiting at once; the action's result is then the abort's reason, thrown. */
  signal?: AbortSignal;
  /** Also return the page's visible text (for a model that cannot see the screenshot). */
  withText?: boolean;
  /**
   * Decides every file: URL the browser loads from this action on (the page, its frames and
   * resources, where it navigates itself). Without one, no local file is opened.
   */
  fileGate?: FileGate;
};

export type Screenshot = { data: Buffer; mediaType: string; width: number; height: number };

/** The page after an action, as the model is shown it. */
export type PageView = {
  ok: true;
  url: string;
  title: string;
  screenshot: Screenshot;
  /** Console messages, page errors, failed loads and dialogs since the previous action. */
  logs: string[];
  /** What else the model should know: a page still loading, an HTTP error status, nothing focused. */
  notes: string[];
  /** Where the mouse is, after a click. */
  mouse?: { x: number; y: number };
  scroll: { y: number; height: number };
  text?: string;
};

export type ActionFailure = { ok: false; message: string };
export type ActionResult = PageView | ActionFailure;

const notRunning = "The browser is not running. Start it with the launch action and a url.";

/**
 * One task's browser: a headless system Chromium with one visible tab, driven one action at a
 * time (calls are queued). It starts on the first launch and stops on close; a browser that
 * crashed or was killed is reported on the next action, and the next launch starts a new one.
 */
export class BrowserSession {
  readonly viewport: Viewport;
  private readonly timing: BrowserTiming;
  private readonly screenshotFormat: ScreenshotFormat | undefined;
  private readonly options: BrowserSessionOptions;
  private readonly log: PageLog;
  private readonly watched = new WeakSet<Page>();
  private chromium: Chromium | undefined;
  private page: Page | undefined;
  private pageCrashed = false;
  /** The tab stopped responding (a script in a loop); a launch replaces it. */
  private pageHung = false;
  private starting: Promise<Browser | ActionFailure> | undefined;
  /** Bumped by every shutdown, so a start that finishes after it closes its own browser. */
  private generation = 0;
  private lostMessage: string | undefined;
  private fileGate: FileGate | undefined;
  private mouse: { x: number; y: number } | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(options: BrowserSessionOptions = {}) {
    this.options = options;
    this.viewport = options.viewport ?? defaultViewport;
    this.timing = { ...defaultBrowserTiming, ...options.timing };
    this.screenshotFormat = options.screenshot;
    this.log = new PageLog(options.logLimits);
  }

  get isRunning(): boolean {
    return this.chromium?.browser.connected === true;
  }

  /** The Chromium process's id while it runs. */
  get pid(): number | undefined {
    return this.chromium?.pid;
  }

  /** The temporary profile folder of the running browser (removed when it stops). */
  get profilePath(): string | undefined {
    return this.chromium?.profileDir;
  }

  /** Starts the browser if it is not running, and opens `url` in its tab. */
  launch(url: string, options: ActionOptions = {}): Promise<ActionResult> {
    return this.action(options, async () => {
      const { signal } = options;
      const started = await this.ensureStarted(signal);
      if (isFailure(started)) return started;
      const page = await this.pageForLaunch(started);
      this.log.clear();
      this.mouse = undefined;
      const notes: string[] = [];
      try {
        const response = await untilAborted(page.goto(url, { waitUntil: "load", timeout: this.timing.loadTimeoutMs }), signal);
        if (response !== null && !response.ok()) notes.push(`The server answered ${response.status()} ${response.statusText()}`.trimEnd() + ".");
      } catch (error) {
        if (signal?.aborted) throw error;
        if (!isTimeout(error)) return { ok: false, message: `Could not open ${url}: ${firstLine(error)}. Check the url, and that its server is running.` };
        notes.push(`The page had not finished loading after ${seconds(this.timing.loadTimeoutMs)}; this is how far it got.`);
      }
      return this.view(notes, options);
    });
  }

  /** Clicks at (x, y) in the viewport's CSS pixels, which are the screenshot's pixels. */
  click(x: number, y: number, options: ActionOptions = {}): Promise<ActionResult> {
    return this.action(options, async () => {
      const page = await this.activePage();
      if (isFailure(page)) return page;
      await this.responsive(page.mouse.click(x, y), options.signal, "The click");
      this.mouse = { x, y };
      return this.view([], options, { mouse: { x, y } });
    });
  }

  /** Types `text` into the focused element; a line break presses Enter. */
  type(text: string, options: ActionOptions = {}): Promise<ActionResult> {
    return this.action(options, async () => {
      const page = await this.activePage();
      if (isFailure(page)) return page;
      const notes: string[] = [];
      const focused = await withinTime(page.evaluate(FOCUSED_ELEMENT), this.timing.responseTimeoutMs, "").catch(() => true);
      if (focused === false) notes.push("No element had focus, so the keys went to the page itself; click the field first, then type.");
      await this.responsive(page.keyboard.type(text), options.signal, "Typing", Math.max(this.timing.responseTimeoutMs, text.length * 50));
      return this.view(notes, options);
    });
  }

  /** Scrolls one viewport height with the mouse wheel, where the mouse is (the middle before any click). */
  scroll(direction: "up" | "down", options: ActionOptions = {}): Promise<ActionResult> {
    return this.action(options, async () => {
      const page = await this.activePage();
      if (isFailure(page)) return page;
      const at = this.mouse ?? { x: Math.floor(this.viewport.width / 2), y: Math.floor(this.viewport.height / 2) };
      const deltaY = direction === "down" ? this.viewport.height : -this.viewport.height;
      await this.responsive(
        page.mouse.move(at.x, at.y).then(() => page.mouse.wheel({ deltaY })),
        options.signal,
        "The scroll",
      );
      return this.view([], options);
    });
  }

  /** Stops the browser after any queued action; true when it was running. */
  close(): Promise<boolean> {
    return this.serialized(() => this.shutdown());
  }

  /** Stops the browser now, without waiting for queued actions (they then fail). For the end of a task. */
  dispose(): Promise<boolean> {
    return this.shutdown();
  }

  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const result = this.queue.then(work);
    this.queue = result.catch(() => {});
    return result;
  }

  /** A queued action whose expected failures (an unresponsive page, a browser that died meanwhile) become results. */
  private action(options: ActionOptions, work: () => Promise<ActionResult>): Promise<ActionResult> {
    const { signal } = options;
    if (options.fileGate !== undefined) this.fileGate = options.fileGate;
    const queued = this.serialized(async (): Promise<ActionResult> => {
      signal?.throwIfAborted();
      try {
        return await work();
      } catch (error) {
        if (signal?.aborted) throw error;
        if (error instanceof TimeoutError) {
          this.pageHung = true;
          return { ok: false, message: `${error.message} Call launch with a url to load a page again, or close the browser.` };
        }
        if (this.lostMessage !== undefined) return { ok: false, message: `${this.lostMessage} Call launch with a url to start a new browser.` };
        throw error;
      }
    });
    // Stopping the task also stops waiting for earlier actions in the queue.
    return untilAborted(queued, signal);
  }

  private async ensureStarted(signal: AbortSignal | undefined): Promise<Browser | ActionFailure> {
    if (this.chromium?.browser.connected) return this.chromium.browser;
    this.starting ??= this.start().finally(() => {
      this.starting = undefined;
    });
    return untilAborted(this.starting, signal);
  }

  private async start(): Promise<Browser | ActionFailure> {
    const generation = this.generation;
    const started = await startChromium({
      ...(this.options.chromiumPath !== undefined ? { chromiumPath: this.options.chromiumPath } : {}),
      ...(this.options.env !== undefined ? { env: this.options.env } : {}),
      ...(this.options.network !== undefined ? { network: this.options.network } : {}),
      viewport: this.viewport,
      timeoutMs: this.timing.launchTimeoutMs,
    });
    if (!started.ok) return started;
    const { chromium } = started;
    if (generation !== this.generation) {
      await chromium.stop(); // closed while starting: nobody wants this browser
      return { ok: false, message: "The browser was closed while it was starting." };
    }
    this.chromium = chromium;
    this.lostMessage = undefined;
    chromium.browser.on("disconnected", () => this.onDisconnected(chromium));
    await gateFileRequests(chromium.browser, () => this.fileGate, (url, reason) => this.log.note(`[blocked] ${url}: ${reason}`));
    const page = (await chromium.browser.pages())[0] ?? (await chromium.browser.newPage());
    this.adopt(page);
    return chromium.browser;
  }

  private onDisconnected(chromium: Chromium): void {
    if (this.chromium !== chromium) return; // closed on purpose
    this.lostMessage = "The browser closed unexpectedly (it crashed or was killed).";
    this.chromium = undefined;
    this.page = undefined;
    this.mouse = undefined;
    void chromium.stop();
  }

  private adopt(page: Page): void {
    this.page = page;
    this.pageCrashed = false;
    this.pageHung = false;
    if (this.watched.has(page)) return;
    this.watched.add(page);
    this.log.watch(page);
    page.on("popup", (popup) => {
      if (popup === null) return;
      this.log.note(`[tab] The page opened a new tab (${popup.url()}); the browser now shows it.`);
      this.adopt(popup);
    });
    page.on("error", (error) => {
      this.log.note(`[page crashed] ${error.message}`);
      if (this.page === page) this.pageCrashed = true;
    });
  }

  /** The tab a launch navigates: the current one, or a new one if it crashed or was closed. */
  private async pageForLaunch(browser: Browser): Promise<Page> {
    const current = this.page;
    if (current !== undefined && !current.isClosed() && !this.pageCrashed && !this.pageHung) return current;
    if (current !== undefined && !current.isClosed()) await withinTime(current.close(), this.timing.responseTimeoutMs, "").catch(() => {});
    const page = await browser.newPage();
    this.adopt(page);
    return page;
  }

  /** The tab actions act on, or why there is none. */
  private async activePage(): Promise<Page | ActionFailure> {
    const browser = this.chromium?.browser;
    if (browser === undefined || !browser.connected) {
      return { ok: false, message: this.lostMessage ? `${this.lostMessage} Call launch with a url to start a new browser.` : notRunning };
    }
    if (this.pageCrashed) return { ok: false, message: "The page crashed (out of memory, or a renderer bug). Call launch with a url to open a page again." };
    if (this.page !== undefined && !this.page.isClosed()) return this.page;
    const open = (await browser.pages()).filter((page) => !page.isClosed());
    const last = open[open.length - 1];
    if (last === undefined) return { ok: false, message: "The page closed itself and no tab is open. Call launch with a url to open one." };
    this.log.note(`[tab] The tab closed; the browser now shows the tab of ${last.url()}.`);
    this.adopt(last);
    return last;
  }

  /** Waits for an input action, unless the page stops responding or the task is stopped. */
  private async responsive(work: Promise<unknown>, signal: AbortSignal | undefined, what: string, ms = this.timing.responseTimeoutMs): Promise<void> {
    const message = `${what} got no response from the page within ${seconds(ms)} (a script may be stuck in a loop).`;
    await untilAborted(withinTime(work, ms, message), signal);
  }

  /** Waits for the page to settle, then shows it: screenshot, URL, title, logs. */
  private async view(notes: string[], options: ActionOptions, extra: { mouse?: { x: number; y: number } } = {}): Promise<ActionResult> {
    const { signal } = options;
    const settledPage = this.page;
    if (settledPage === undefined) return { ok: false, message: notRunning };
    try {
      await untilAborted(settledPage.waitForNetworkIdle({ idleTime: this.timing.idleMs, timeout: this.timing.settleTimeoutMs }), signal);
    } catch (error) {
      if (signal?.aborted) throw error;
      if (isTimeout(error)) notes.push(`The page was still loading after ${seconds(this.timing.settleTimeoutMs)} (requests open); the screenshot shows it as it was then.`);
    }
    // A popup may have replaced the tab meanwhile.
    const page = await this.activePage();
    if (isFailure(page)) return page;
    let data: Uint8Array;
    let facts: PageFacts;
    try {
      data = await this.within(this.capture(page), signal, "A screenshot");
      facts = await this.within(readPageFacts(page, options.withText === true), signal, "Reading the page");
    } catch (error) {
      if (signal?.aborted || error instanceof TimeoutError || this.lostMessage !== undefined) throw error;
      return { ok: false, message: `Could not take a screenshot: ${firstLine(error)}.` };
    }
    return {
      ok: true,
      url: page.url(),
      title: facts.title,
      screenshot: { data: Buffer.from(data), mediaType: `image/${this.screenshotFormat?.type ?? "webp"}`, ...this.viewport },
      logs: await this.log.drain(),
      notes,
      ...(extra.mouse ? { mouse: extra.mouse } : {}),
      scroll: facts.scroll,
      ...(facts.text !== undefined ? { text: facts.text } : {}),
    };
  }

  private async capture(page: Page): Promise<Uint8Array> {
    const format = this.screenshotFormat;
    if (format !== undefined) return page.screenshot({ type: format.type, ...(format.type === "png" ? {} : { quality: format.quality ?? 80 }) });
    const lossless = await page.screenshot({ type: "webp", quality: 100 }); // 100 is lossless in Chromium
    const lossy = await page.screenshot({ type: "webp", quality: 90 });
    return lossy.length < lossless.length ? lossy : lossless;
  }

  private within<T>(work: Promise<T>, signal: AbortSignal | undefined, what: string): Promise<T> {
    const ms = this.timing.responseTimeoutMs;
    return untilAborted(withinTime(work, ms, `${what} got no response from the page within ${seconds(ms)} (a script may be stuck in a loop).`), signal);
  }

  private async shutdown(): Promise<boolean> {
    this.generation += 1;
    const chromium = this.chromium;
    this.chromium = undefined;
    this.page = undefined;
    this.mouse = undefined;
    this.lostMessage = undefined;
    this.log.clear();
    const wasRunning = chromium?.browser.connected === true;
    await chromium?.stop();
    return wasRunning;
  }
}

const FOCUSED_ELEMENT = "(() => { const a = document.activeElement; return a !== null && a !== document.body && a !== document.documentElement; })()";

function isFailure<T extends object>(value: T | ActionFailure): value is ActionFailure {
  return "ok" in value && value.ok === false;
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === "TimeoutError";
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split("\n")[0] ?? "").replace(/\.$/, "");
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
