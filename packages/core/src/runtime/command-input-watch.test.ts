import { describe, expect, it } from "vitest";
import { CommandInputWatch } from "./command-input-watch.js";

function watch(): { watch: CommandInputWatch; told: () => number } {
  let told = 0;
  return { watch: new CommandInputWatch(() => told++), told: () => told };
}

describe("CommandInputWatch", () => {
  it("tells once, as soon as a streaming command's JSON shows it is not plain", () => {
    const { watch: w, told } = watch();
    w.start("c1");
    for (const piece of ['{"comm', 'and": "npm t', "est -- --run", " && cd app", ' 2>&1 | grep -v \\"x (y', ')\\" | tail -5']) w.delta("c1", null, piece);
    expect(told()).toBe(0);
    w.delta("c1", null, ' > \\"$OUT\\"", "requires_approval": false}');
    expect(told()).toBe(1);
    w.start("c2");
    w.delta("c2", null, '{"command": "echo $HOME"}');
    expect(told()).toBe(1);
  });

  it("reads an escape split across pieces, and the command after other arguments", () => {
    const { watch: w, told } = watch();
    w.start("c1");
    w.delta("c1", null, '{"requires_approval": true, "command": "echo \\');
    expect(told()).toBe(0);
    w.delta("c1", null, '"hi\\" 2\\u003e\\u00261 \\');
    expect(told()).toBe(0);
    w.delta("c1", null, 'nls"}');
    expect(told()).toBe(1);
  });

  it("reads XML calls' command parameter, and leaves other calls and parameters alone", () => {
    const { watch: w, told } = watch();
    w.delta("r1", null, '{"command": "cat $x"}'); // a call never started as a command call
    w.start("c1");
    w.delta("c1", "requires_approval", "<true>");
    w.delta("c1", "command", "ls -la src && grep 'a (b");
    w.delta("c1", "command", ")' src");
    expect(told()).toBe(0);
    w.delta("c1", "command", "/*.ts");
    expect(told()).toBe(1);
  });

  it("stays quiet for a plain command, whole", () => {
    const { watch: w, told } = watch();
    w.start("c1");
    w.delta("c1", null, '{"command": "git status --short && git log -n 5 | head -3", "requires_approval": false}');
    expect(told()).toBe(0);
  });
});
