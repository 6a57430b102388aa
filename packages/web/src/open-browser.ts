import { spawn } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";

/** The desktop's program that opens a link in the person's browser, and its arguments for `url`. */
function systemOpener(platform: NodeJS.Platform, url: string): { name: string; args: string[] } {
  if (platform === "darwin") return { name: "open", args: [url] };
  // `start` is built into cmd, so cmd is what must be found.
  if (platform === "win32") return { name: "cmd", args: ["/c", "start", "", url] };
  return { name: "xdg-open", args: [url] };
}

/** The executable `name` resolves to on the PATH in `env` (with Windows' PATHEXT), as a shell would find it. */
function findOnPath(name: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string | undefined {
  const dirs = (env.PATH ?? env.Path ?? "").split(platform === "win32" ? ";" : ":").filter((d) => d !== "");
  const extensions = platform === "win32" ? (env.PATHEXT ?? ".COM;.EXE;.BAT;.CMD").split(";") : [""];
  for (const dir of dirs) {
    for (const ext of extensions) {
      const candidate = path.join(dir, name + ext);
      try {
        if (!statSync(candidate).isFile()) continue;
        accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        // Not here, or not runnable: look further along the PATH, as a shell does.
      }
    }
  }
  return undefined;
}

/**
 * Opens `url` in the person's browser through the system's opener found on PATH. Undefined when it
 * started; otherwise the one line to tell the person (the link is printed already, so this is
 * never a failure of `cairn web`).
 */
export function openBrowser(url: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): Promise<string | undefined> {
  const opener = systemOpener(platform, url);
  const found = findOnPath(opener.name, env, platform);
  if (!found) return Promise.resolve(`cairn: --open found no ${opener.name} on PATH to open a browser; open the link above.`);
  return new Promise((resolve) => {
    const child = spawn(found, opener.args, { stdio: "ignore", detached: true, env });
    child.once("error", (error) => resolve(`cairn: --open could not start ${found} (${(error as NodeJS.ErrnoException).code ?? error.message}); open the link above.`));
    child.once("spawn", () => {
      child.unref();
      resolve(undefined);
    });
  });
}
