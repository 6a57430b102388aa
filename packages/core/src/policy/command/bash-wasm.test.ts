import v8 from "node:v8";
import { expect, it } from "vitest";
import { loadBashParser, restoreWasmTiering } from "./bash-wasm.js";

const tagAtStart = v8.cachedDataVersionTag();

it("turns wasm tier-up off while commands are parsed, and restoreWasmTiering puts V8's flags back as it found them", async () => {
  const parser = await loadBashParser();
  expect(v8.cachedDataVersionTag()).not.toBe(tagAtStart);
  const tree = parser.parse("echo hi | wc -l");
  expect(tree?.rootNode.toString()).toContain("pipeline");
  tree?.delete();

  // A changed hash makes V8 refuse Node's embedded cache for built-ins loaded later, and `cairn
  // run`'s own code cache written at the task's end.
  restoreWasmTiering();
  expect(v8.cachedDataVersionTag()).toBe(tagAtStart);
  const again = parser.parse("ls -la");
  expect(again?.rootNode.toString()).toContain("command");
  again?.delete();
});
