import { describe, expect, it } from "vitest";
import { formatOutline } from "../format.js";
import { outlineSource } from "../outline.js";
import { tsx, typescript } from "./typescript.js";

const source = `import { EventEmitter } from "node:events";

/** Options for the server. */
export interface Options {
  port: number;
  start(): void;
}

export type Handler = (request: Request) => Promise<Response>;

type Pair = { a: string; b(): void };

export enum Level {
  Debug,
  Info,
}

@sealed
export class Server extends EventEmitter implements Disposable {
  private handlers: Handler[] = [];
  handle = (r: Request) => r;

  constructor(private readonly options: Options) {
    super();
  }

  async start(port: number): Promise<void> {
    function inner() {}
    const helper = () => 1;
  }

  static create(): Server { return new Server({ port: 1, start() {} }); }

  get size(): number {
    return this.handlers.length;
  }
}

export abstract class Base {
  abstract run(): void;
}

export function createServer(
  options: Options,
): Server {
  return new Server(options);
}

export const makeHandler = (name: string): Handler => async () => new Response(name);
const plain = 42;

export function overload(a: string): void;
export function overload(a: unknown) {}

declare function declared(x: number): string;

namespace Util {
  export function helper() {}
}

declare module "pkg" {
  export interface Extra {}
}

describe("suite", () => {
  function notListed() {}
});

export const User = z.object({
  name: z.string(),
  greet: () => "hi",
});
`;

async function outline(text: string, spec = typescript): Promise<string[]> {
  const { entries } = await outlineSource(text, spec);
  return formatOutline("file", entries).split("\n").slice(1);
}

describe("TypeScript outline", () => {
  it("lists interfaces, types, enums, classes with their members, functions, namespaces and ambient modules", async () => {
    expect(await outline(source)).toEqual([
      "   4│ export interface Options",
      "   6│   start(): void",
      "   9│ export type Handler = (request: Request) => Promise<Response>",
      "  11│ type Pair = { a: string; b(): void }",
      "  13│ export enum Level",
      "  19│ export class Server extends EventEmitter implements Disposable",
      "  21│   handle = (r: Request) =>",
      "  23│   constructor(private readonly options: Options)",
      "  27│   async start(port: number): Promise<void>",
      "  32│   static create(): Server",
      "  34│   get size(): number",
      "  39│ export abstract class Base",
      "  40│   abstract run(): void",
      "  43│ export function createServer(",
      "  49│ export const makeHandler = (name: string): Handler =>",
      "  52│ export function overload(a: string): void",
      "  53│ export function overload(a: unknown)",
      "  55│ declare function declared(x: number): string",
      "  57│ namespace Util",
      "  58│   export function helper()",
      "  61│ declare module \"pkg\"",
      "  62│   export interface Extra",
      "  69│ export const User = z.object(",
    ]);
  });

  it("leaves out what is defined inside functions, callbacks and values, and constants that are not exported", async () => {
    const names = (await outlineSource(source, typescript)).entries.map((e) => e.name);
    expect(names).not.toContain("inner");
    expect(names.filter((n) => n === "helper")).toHaveLength(1); // Util.helper, not the arrow in start()
    expect(names).not.toContain("notListed");
    expect(names).not.toContain("plain");
    expect(names).not.toContain("greet");
    expect(names.filter((n) => n === "start")).toHaveLength(2); // Options.start and Server.start, not the object literal's
  });

  it("reads TSX with JSX in function bodies", async () => {
    const component = `import React from "react";

export interface Props {
  title: string;
}

export function Card({ title }: Props) {
  const Inner = () => <span>{title}</span>;
  return <div className="card"><Inner /></div>;
}

export default class Page extends React.Component<Props> {
  render() {
    return <Card title={this.props.title} />;
  }
}
`;
    expect(await outline(component, tsx)).toEqual([
      "   3│ export interface Props",
      "   7│ export function Card({ title }: Props)",
      "  12│ export default class Page extends React.Component<Props>",
      "  13│   render()",
    ]);
  });
});
