import type { ConsoleMessage, Dialog, JSHandle, Page } from "puppeteer-core";

export type PageLogLimits = {
  /** Entries kept between two actions; later ones are counted, not kept (the first errors are the cause). */
  maxEntries: number;
  /** One entry's length (a long stack or a huge logged object is cut). */
  maxEntryChars: number;
};

export const defaultPageLogLimits: PageLogLimits = { maxEntries: 100, maxEntryChars: 1000 };

/** How long formatting the logged values may take before the plain text is used. */
const FORMAT_WAIT_MS = 1000;

/**
 * What the pages printed and threw since the last action: console messages (objects shown as
 * JSON), uncaught exceptions, resources that failed to load, and dialogs (answered so they cannot
 * block the page).
 */
export class PageLog {
  private entries: Array<Promise<string>> = [];
  private dropped = 0;
  private readonly limits: PageLogLimits;

  constructor(limits: Partial<PageLogLimits> = {}) {
    this.limits = { ...defaultPageLogLimits, ...limits };
  }

  watch(page: Page): void {
    page.on("console", (message) => {
      if (isFaviconNoise(message)) return;
      this.add(describeConsole(message));
    });
    page.on("pageerror", (error) => {
      const text = error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
      this.add(`[page error] ${text}`);
    });
    page.on("dialog", (dialog) => {
      this.add(answerDialog(dialog));
    });
  }

  /** Adds an entry of the session's own (a tab opened, a page crashed). */
  note(text: string): void {
    this.add(text);
  }

  /** The entries since the last call, oldest first, and starts a new batch. */
  async drain(): Promise<string[]> {
    const pending = this.entries;
    const dropped = this.dropped;
    this.entries = [];
    this.dropped = 0;
    const lines = (await Promise.all(pending)).map((line) => cut(line, this.limits.maxEntryChars));
    if (dropped > 0) lines.push(`[... ${dropped} more log entr${dropped === 1 ? "y" : "ies"} not shown]`);
    return lines;
  }

  clear(): void {
    this.entries = [];
    this.dropped = 0;
  }

  private add(entry: string | Promise<string>): void {
    if (this.entries.length >= this.limits.maxEntries) {
      this.dropped += 1;
      return;
    }
    this.entries.push(Promise.resolve(entry));
  }
}

async function describeConsole(message: ConsoleMessage): Promise<string> {
  const type = message.type();
  let text = message.text();
  const args = message.args();
  if (args.some((arg) => arg.remoteObject().type === "object")) {
    text = await withFallback(Promise.all(args.map(describeValue)).then((parts) => parts.join(" ")), text);
  }
  // Chromium's own "Failed to load resource" lines name the resource only in their location.
  const where = message.location().url;
  if (type === "error" && where && text.startsWith("Failed to load resource") && !text.includes(where)) text += ` (${where})`;
  return `[${type}] ${text}`;
}

/** A logged value as a person reads it in the devtools console: strings bare, objects as JSON. */
async function describeValue(arg: JSHandle): Promise<string> {
  const remote = arg.remoteObject();
  if (remote.type === "string") return String(remote.value);
  if (remote.type !== "object" || remote.subtype === "null") return remote.unserializableValue ?? remote.description ?? String(remote.value);
  if (remote.subtype === "error" || remote.subtype === "node") return remote.description ?? remote.className ?? "object";
  try {
    return JSON.stringify(await arg.jsonValue()) ?? remote.description ?? "object";
  } catch {
    return remote.description ?? remote.className ?? "object"; // cyclic, or its page is gone
  }
}

function answerDialog(dialog: Dialog): string {
  const kind = dialog.type();
  const text = dialog.message();
  // Answered at once: an open alert blocks the page, and every later action would hang.
  if (kind === "prompt") {
    dialog.accept(dialog.defaultValue()).catch(() => {});
    return `[dialog ${kind}] ${text} (answered with its default value "${dialog.defaultValue()}")`;
  }
  dialog.accept().catch(() => {});
  return `[dialog ${kind}] ${text} (accepted)`;
}

function isFaviconNoise(message: ConsoleMessage): boolean {
  return message.type() === "error" && /\/favicon\.ico(\?|$)/.test(message.location().url ?? "");
}

function withFallback(work: Promise<string>, fallback: string): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(fallback), FORMAT_WAIT_MS);
  });
  return Promise.race([work.catch(() => fallback), timeout]).finally(() => clearTimeout(timer));
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters]`;
}
