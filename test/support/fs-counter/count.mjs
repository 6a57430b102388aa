/**
 * Preload that counts a Node process's fsyncs and renames: `node --import <this file>` with
 * CAIRN_COUNT_FS=<file>. The `node:fs` functions are wrapped and the ES module bindings synced
 * (syncBuiltinESMExports), so `import { renameSync } from "node:fs"` in the program sees the
 * wrappers too. At exit the file gets one line per call: `fsync <path> <ms>` or `rename <target> <ms>`,
 * the call's wall time (what it held the thread).
 */
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";

const out = process.env.CAIRN_COUNT_FS;
if (out) {
  const lines = [];
  const opened = new Map();
  const { openSync, closeSync, fsyncSync, fdatasyncSync, renameSync, writeFileSync } = fs;
  const { rename, fsync, fdatasync } = fs.promises;
  fs.openSync = function (file, ...rest) {
    const fd = openSync.call(this, file, ...rest);
    opened.set(fd, String(file));
    return fd;
  };
  fs.closeSync = function (fd) {
    opened.delete(fd);
    return closeSync.call(this, fd);
  };
  const timed = (line, call) => {
    const started = performance.now();
    try {
      return call();
    } finally {
      lines.push(`${line} ${(performance.now() - started).toFixed(3)}`);
    }
  };
  fs.fsyncSync = function (fd) {
    return timed(`fsync ${opened.get(fd) ?? `fd ${fd}`}`, () => fsyncSync.call(this, fd));
  };
  fs.fdatasyncSync = function (fd) {
    return timed(`fsync ${opened.get(fd) ?? `fd ${fd}`}`, () => fdatasyncSync.call(this, fd));
  };
  fs.renameSync = function (from, to) {
    return timed(`rename ${to}`, () => renameSync.call(this, from, to));
  };
  fs.promises.rename = function (from, to) {
    lines.push(`rename ${to}`);
    return rename.call(this, from, to);
  };
  fs.promises.fsync = fsync && ((...args) => (lines.push("fsync (promise)"), fsync(...args)));
  fs.promises.fdatasync = fdatasync && ((...args) => (lines.push("fsync (promise)"), fdatasync(...args)));
  syncBuiltinESMExports();
  process.on("exit", () => writeFileSync(out, lines.length > 0 ? `${lines.join("\n")}\n` : ""));
}
