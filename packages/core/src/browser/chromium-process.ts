import { rmSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Browser, LaunchOptions } from "puppeteer-core";
import type { IsolatedNetwork } from "../sandbox/isolated-network.js";
import { findChromium } from "./find-chromium.js";
import { withinTime } from "./waiting.js";

/** How long a browser may take to close before it is killed. */
const CLOSE_GRACE_MS = 5_000;

export type ChromiumLaunch = {
  /** The executable; found with findChromium() (CAIRN_CHROMIUM_PATH, PATH, usual places) when absent. */
  chromiumPath?: string;
  /** Where findChromium() reads CAIRN_CHROMIUM_PATH and PATH; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  viewport: { width: number; height: number };
  timeoutMs: number;
  /**
   * The network namespace the task's commands run in (isolated-network.ts), when they have one:
   * the browser starts inside it, so it sees what they see (a dev server a command started on
   * their localhost) and, like them, not this machine's loopback (the fleet's Redis, `cairn web`).
   */
  network?: BrowserNetwork;
};

/**
 * How the browser joins the commands' network: `enter` as commands do, and bubblewrap, only to give
 * Chromium the namespace's resolv.conf where the host's names a resolver on its own loopback.
 */
export type BrowserNetwork = Pick<IsolatedNetwork, "enter"> & { bwrap: string };

export type StartedChromium = { ok: true; chromium: Chromium } | { ok: false; message: string };

/** A running Chromium and its throwaway profile folder, which goes when it stops. */
export class Chromium {
  private stopped = false;

  constructor(
    readonly browser: Browser,
    readonly profileDir: string,
  ) {
    live.add(this);
    ensureExitHook();
  }

  get pid(): number | undefined {
    return this.browser.process()?.pid;
  }

  /** Closes the browser (killing it when it does not close in time) and removes its profile. Safe to call twice. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    live.delete(this);
    await withinTime(this.browser.close(), CLOSE_GRACE_MS, "").catch(() => this.browser.process()?.kill("SIGKILL"));
    await rm(this.profileDir, { recursive: true, force: true, maxRetries: 3 });
  }

  /** For the exit hook, where nothing can be awaited. */
  killNow(): void {
    this.browser.process()?.kill("SIGKILL");
    rmSync(this.profileDir, { recursive: true, force: true });
  }
}

/** Starts a headless system Chromium with a fresh profile, or says why it could not. */
export async function startChromium(launch: ChromiumLaunch): Promise<StartedChromium> {
  const found = launch.chromiumPath
    ? { found: true as const, path: launch.chromiumPath }
    : await findChromium(launch.env ? { env: launch.env } : {});
  if (!found.found) return { ok: false, message: found.message };
  const entry = launch.network?.enter();
  if (entry !== undefined && !entry.ok) {
    return {
      ok: false,
      message: `Could not start the browser: the sandbox's network could not start (${entry.reason}). Ask the person to fix it, or to set "sandbox": {"allowLocalhost": true} (the browser and commands then share this machine's network).`,
    };
  }
  const profileDir = await mkdtemp(path.join(os.tmpdir(), "cairn-chromium-"));
  try {
    // Puppeteer is a few hundred modules: loaded when a browser first starts, not with the agent.
    const { default: puppeteer } = await import("puppeteer-core");
    const options: LaunchOptions = {
      executablePath: found.path,
      headless: true,
      // Pipes instead of a debugging port: nothing else on the machine can connect to the browser,
      // and Chromium exits by itself when its parent dies and the pipe closes.
      pipe: true,
      userDataDir: profileDir,
      args: chromiumArgs(),
      defaultViewport: { ...launch.viewport, deviceScaleFactor: 1 },
      timeout: launch.timeoutMs,
      // Puppeteer's own handlers would exit the process on Ctrl-C; the host decides that.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    };
    const browser = await puppeteer.launch(
      entry === undefined ? options : inNamespace(options, namespaceLine(entry, launch.network!.bwrap), puppeteer.defaultArgs(options)),
    );
    return { ok: true, chromium: new Chromium(browser, profileDir) };
  } catch (error) {
    await rm(profileDir, { recursive: true, force: true });
    const reason = ((error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "").replace(/\.$/, "");
    return {
      ok: false,
      message: `Could not start Chromium (${found.path}): ${reason}. Check that it runs (\`${found.path} --version\`), or set CAIRN_CHROMIUM_PATH to another Chromium or Chrome.`,
    };
  }
}

/**
 * What runs Chromium in the namespace: nsenter, as for commands; where the host's resolver is on
 * its loopback (systemd-resolved's 127.0.0.53), which the namespace cannot reach, bubblewrap then
 * binds the namespace's resolv.conf (slirp4netns's forwarder) over /etc/resolv.conf, and nothing
 * else: the whole file system as it is, devices included, no other namespace. Only a mount can do
 * that without privileges, and bubblewrap is there whenever the sandbox is. --die-with-parent: a
 * kill of the process Puppeteer holds (bubblewrap's, then; else nsenter has become Chromium) still ends the browser.
 */
function namespaceLine(entry: { prefix: string[]; resolvConf?: string | undefined }, bwrap: string): string[] {
  if (entry.resolvConf === undefined) return entry.prefix;
  return [...entry.prefix, bwrap, "--dev-bind", "/", "/", "--ro-bind", entry.resolvConf, "/etc/resolv.conf", "--die-with-parent"];
}

/**
 * The launch that runs Chromium through `prefix` (namespaceLine). Only its network changes: same
 * user, same files, Chromium's own sandbox as before. Puppeteer puts its own arguments before ours,
 * so they are computed here and the whole line is given after the prefix. DevTools talks over the
 * pipes on fds 3 and 4, which nsenter and bubblewrap pass on: a debugging port on the namespace's
 * loopback would be out of reach from here.
 */
function inNamespace(options: LaunchOptions, prefix: string[], chromiumArguments: string[]): LaunchOptions {
  return {
    ...options,
    executablePath: prefix[0]!,
    ignoreDefaultArgs: true,
    args: [...prefix.slice(1), "--", options.executablePath!, ...chromiumArguments],
  };
}

/** Headless; quiet on a closed network (no background fetches, updates, sync or QUIC); no sandbox as root, where Chromium refuses it. */
export function chromiumArgs(isRoot = process.getuid?.() === 0): string[] {
  return [
    ...(isRoot ? ["--no-sandbox"] : []),
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
  ];
}

const live = new Set<Chromium>();
let exitHooked = false;

/** A host that exits without closing its browsers must not leave Chromium running or its profile behind. */
function ensureExitHook(): void {
  if (exitHooked) return;
  exitHooked = true;
  process.once("exit", () => {
    for (const chromium of live) chromium.killNow();
  });
}
