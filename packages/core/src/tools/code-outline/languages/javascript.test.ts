import { describe, expect, it } from "vitest";
import { formatOutline } from "../format.js";
import { outlineFile, outlineSource } from "../outline.js";
import { javascript } from "./javascript.js";

const source = `'use strict';
const path = require("path");

class Store extends Map {
  #secret = 1;
  static instances = 0;
  handler = () => {};

  constructor(name) {
    super();
    this.name = name;
  }

  *entriesOf(key) {
    yield key;
  }

  async load() {
    const parse = (text) => JSON.parse(text);
    return parse("{}");
  }
}

function createStore(name) {
  function normalize(n) { return n.trim(); }
  return new Store(normalize(name));
}

async function* stream() {}

const helper = function (a, b) { return a + b; };
const arrow = async (x) => x * 2;
let Widget = class {
  render() {}
};

Store.prototype.save = function save(target) {};
module.exports = { createStore, helper };
exports.extra = () => {};

export default class extends Store {}
export function named() {}

app.get("/", (req, res) => {
  function route() {}
});
`;

async function outline(text: string): Promise<string[]> {
  const { entries } = await outlineSource(text, javascript);
  return formatOutline("file", entries).split("\n").slice(1);
}

describe("JavaScript outline", () => {
  it("lists classes and their methods, function declarations, function values and prototype/exports assignments", async () => {
    expect(await outline(source)).toEqual([
      "   4│ class Store extends Map",
      "   7│   handler = () =>",
      "   9│   constructor(name)",
      "  14│   *entriesOf(key)",
      "  18│   async load()",
      "  24│ function createStore(name)",
      "  29│ async function* stream()",
      "  31│ const helper = function (a, b)",
      "  32│ const arrow = async (x) =>",
      "  33│ let Widget = class",
      "  34│   render()",
      "  37│ Store.prototype.save = function save(target)",
      "  39│ exports.extra = () =>",
      "  41│ export default class extends Store",
      "  42│ export function named()",
    ]);
  });

  it("leaves out functions nested in functions, and plain values", async () => {
    const names = (await outlineSource(source, javascript)).entries.map((e) => e.name);
    expect(names).not.toContain("normalize");
    expect(names).not.toContain("parse");
    expect(names).not.toContain("path");
    expect(names).not.toContain("route"); // inside a callback
  });

  it("reads .mjs, .cjs and .jsx files as JavaScript", async () => {
    const jsx = "export function App() {\n  return <main><h1>Hi</h1></main>;\n}\n";
    for (const name of ["a.mjs", "a.cjs", "a.jsx", "a.js"]) {
      const outlined = await outlineFile(name, jsx);
      expect(outlined?.language.id).toBe("javascript");
      expect(outlined?.hasErrors).toBe(false);
      expect(outlined?.entries.map((e) => e.signature)).toEqual(["export function App()"]);
    }
  });

  it("outlines a minified one-line bundle without showing the whole line for each definition", async () => {
    const minified = `${"var a=1;".repeat(2000)}function f(a,b){return a+b}class C{m(){return 1}}function g(){}`;
    const { entries } = await outlineSource(minified, javascript);
    expect(entries.map((e) => [e.line, e.signature, e.depth])).toEqual([
      [1, "function f(a,b)", 0],
      [1, "class C", 0],
      [1, "m()", 1],
      [1, "function g()", 0],
    ]);
  });
});
