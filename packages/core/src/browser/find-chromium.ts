import { access, constants, stat } from "node:fs/promises";
import path from "node:path";

/** Names tried on PATH, in this order. */
export const chromiumNames = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"] as const;

/** Where Chromium or Chrome usually lives when it is not on PATH. */
export const commonChromiumLocations: readonly string[] = [
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
  "/usr/bin/google-chrome-stable",
  "/snap/bin/chromium",
  "/opt/google/chrome/chrome",
  "/Applications/Chromium.app/Contents/MacOS/Chromium",
  "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
  "C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe",
  "C:\\Program Files (x86)\\Google\\Chrome\\Application\\chrome.exe",
];

export const noChromiumMessage =
  "No Chromium found: install it (Debian/Ubuntu: apt-get install chromium) or set CAIRN_CHROMIUM_PATH to a Chromium or Chrome executable.";

export type ChromiumSearch = {
  /** Defaults to process.env; CAIRN_CHROMIUM_PATH and PATH are read from it. */
  env?: NodeJS.ProcessEnv;
  /** Defaults to `commonChromiumLocations`. */
  locations?: readonly string[];
};

export type FoundChromium = { found: true; path: string } | { found: false; message: string };

/**
 * The system Chromium to drive: CAIRN_CHROMIUM_PATH when set (and then only it, so a wrong setting
 * is reported rather than silently replaced), else the first of `chromiumNames` on PATH, else a
 * common install location.
 */
export async function findChromium(search: ChromiumSearch = {}): Promise<FoundChromium> {
  const env = search.env ?? process.env;
  const configured = env.CAIRN_CHROMIUM_PATH?.trim();
  if (configured) {
    if (await isExecutableFile(configured)) return { found: true, path: configured };
    return {
      found: false,
      message: `No Chromium found: CAIRN_CHROMIUM_PATH is ${configured}, which is not an executable file. Point it at a Chromium or Chrome executable, or unset it to search PATH.`,
    };
  }
  const suffix = process.platform === "win32" ? ".exe" : "";
  const dirs = (env.PATH ?? "").split(path.delimiter).filter((dir) => dir !== "");
  for (const name of chromiumNames) {
    for (const dir of dirs) {
      const candidate = path.join(dir, name + suffix);
      if (await isExecutableFile(candidate)) return { found: true, path: candidate };
    }
  }
  for (const candidate of search.locations ?? commonChromiumLocations) {
    if (await isExecutableFile(candidate)) return { found: true, path: candidate };
  }
  return { found: false, message: noChromiumMessage };
}

async function isExecutableFile(file: string): Promise<boolean> {
  try {
    if (!(await stat(file)).isFile()) return false;
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
