import { execFileSync } from "node:child_process";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Ends a tmux server and waits until every process of its panes has gone: cairn may still be
 * writing its last journal lines into CAIRN_HOME, which a test is about to remove. `tmux` runs a
 * tmux command on the server's socket.
 */
export async function endTmuxServer(tmux: (...args: string[]) => string): Promise<void> {
  let pids: number[] = [];
  try {
    pids = tmux("list-panes", "-a", "-F", "#{pane_pid}").split("\n").filter(Boolean).map(Number);
    const children = new Map<number, number[]>();
    for (const line of execFileSync("ps", ["-e", "-o", "pid=,ppid="], { encoding: "utf8" }).trim().split("\n")) {
      const [pid, ppid] = line.trim().split(/\s+/).map(Number);
      children.set(ppid!, [...(children.get(ppid!) ?? []), pid!]);
    }
    for (let i = 0; i < pids.length; i++) pids.push(...(children.get(pids[i]!) ?? []));
    tmux("kill-server");
  } catch {
    // not started, or already gone
  }
  const end = Date.now() + 10_000;
  while (pids.some(alive) && Date.now() < end) await sleep(50);
  for (const pid of pids.filter(alive)) process.kill(pid, "SIGKILL");
}
