/**
 * Preload that records which of Node's own modules a process loaded: `node --import <this file>`
 * with CAIRN_NODE_INTERNALS=<folder>. At exit the process writes process.moduleLoadList (one
 * `NativeModule <name>` or `Internal Binding <name>` a line) to <folder>/<pid>.txt, so a command's
 * child processes, which inherit NODE_OPTIONS, each leave their own file. Tests read it to show
 * what a run never loads (Node's bundled undici, behind the global fetch, Response and Headers).
 */
import { writeFileSync } from "node:fs";
import path from "node:path";

const folder = process.env.CAIRN_NODE_INTERNALS;
if (folder) process.on("exit", () => writeFileSync(path.join(folder, `${process.pid}.txt`), `${process.moduleLoadList.join("\n")}\n`));
