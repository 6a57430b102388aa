/**
 * A recorded provider stream replayed through the interactive `cairn` in a real terminal (tmux,
 * 100x40): what the person sees of the provider's quirks, here a server that reports no usage.
 */
import { execFileSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { cairnBin, cleanEnv, tempDir } from "../support/cairn-cli.js";
import { recordedStream } from "../support/provider-replay.js";
import { startReplayServer, type ReplayServer } from "../support/replay-server.js";
import { endTmuxServer } from "../support/tmux-end.js";

const TMUX = "/usr/bin/tmux";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let server: ReplayServer | undefined;
let socket: string | undefined;
const dirs: Array<ReturnType<typeof tempDir>> = [];

beforeAll(() => {
  if (!existsSync(TMUX)) throw new Error(`tmux is needed for these tests and is not at ${TMUX}: install it (apt-get install tmux).`);
});
afterEach(async () => {
  if (socket) await endTmuxServer((...args) => execFileSync(TMUX, ["-L", socket!, ...args], { encoding: "utf8" }));
  socket = undefined;
  await server?.close();
  server = undefined;
  for (const dir of dirs.splice(0)) dir.cleanup();
});

describe("a server that reports no usage, in the terminal", () => {
  it("the status line shows the estimate as one: ~N tokens (estimated)", { timeout: 90_000 }, async () => {
    const workspace = tempDir("replay-tui-ws");
    const home = tempDir("replay-tui-home");
    dirs.push(workspace, home);
    writeFileSync(path.join(workspace.dir, "a.txt"), "alpha beta gamma\n");
    writeFileSync(path.join(home.dir, "settings.json"), JSON.stringify({ checkpoints: false }));
    server = await startReplayServer({
      wire: "openai",
      responses: [recordedStream("compatible-no-usage.sse")],
      finish: { content: [{ type: "tool_use", name: "attempt_completion", input: { result: "REPLAY_FINISHED" } }] },
      finishWithoutUsage: true,
    });
    socket = `cairn-replay-e2e-${process.pid}`;
    const env = cleanEnv({ TERM: "xterm-256color", CAIRN_HOME: home.dir, CAIRN_API_KEY: "replay-key" });
    const tmux = (...args: string[]) => execFileSync(TMUX, ["-L", socket!, ...args], { env, encoding: "utf8" });
    const script = path.join(home.dir, "launch.sh");
    const args = ["--provider", "openai-compatible", "--model", "local-coder", "--base-url", `${server.url}/v1`, "--auto-approve", "read"];
    writeFileSync(script, `cd '${workspace.dir}'\n'${process.execPath}' '${cairnBin}' ${args.map((a) => `'${a}'`).join(" ")}\necho "[cairn exited $?]"\nsleep 600\n`);
    tmux("new-session", "-d", "-s", "main", "-x", "100", "-y", "40", `sh '${script}'`);
    const waitFor = async (expected: RegExp): Promise<string> => {
      const until = Date.now() + 30_000;
      for (;;) {
        const screen = tmux("capture-pane", "-p", "-t", "main", "-S", "-200");
        if (expected.test(screen)) return screen;
        if (Date.now() > until) throw new Error(`Timed out waiting for ${String(expected)} on the screen:\n${screen}`);
        await sleep(100);
      }
    };
    await waitFor(/describe a task, or \/help/);
    tmux("send-keys", "-t", "main", "-l", "Read a.txt and summarise it.");
    await sleep(60);
    tmux("send-keys", "-t", "main", "Enter");
    const screen = await waitFor(/REPLAY_FINISHED/);
    const status = await waitFor(/local-coder · ~\S+\/\S+ tokens \(estimated\)/);
    expect(server.requests).toHaveLength(2);
    expect(screen + status).not.toMatch(/local-coder · \d\S*\/\S+ tokens/);
  });
});
