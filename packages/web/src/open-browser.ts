import { spawn } from "node:child_process";

/** Opens `url` in the person's browser; false when no opener could start (the link is printed anyway). */
export function openBrowser(url: string): Promise<boolean> {
  const [command, args] =
    process.platform === "darwin" ? ["open", [url]] : process.platform === "win32" ? ["cmd", ["/c", "start", "", url]] : ["xdg-open", [url]];
  return new Promise((resolve) => {
    const child = spawn(command as string, args as string[], { stdio: "ignore", detached: true });
    child.once("error", () => resolve(false));
    child.once("spawn", () => {
      child.unref();
      resolve(true);
    });
  });
}
