import { statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The pictures a model can look at, by extension (core's read-document list): a pasted path with
 * another extension is text the person means to send, whatever the file holds.
 */
const imageFile = /\.(png|jpe?g|gif|webp)$/i;

/** How an attached picture shows, above the input and in the message it went with. */
export function imageChip(name: string): string {
  return `[image: ${name}]`;
}

/**
 * When a paste is the path of an image file (a screenshot dragged onto the terminal, a path copied
 * from a file manager), that file's absolute path; otherwise undefined and the paste stays text.
 * Terminals and file managers quote a dropped path or escape its spaces, or paste it as a file://
 * URL; a relative path is the workspace's. A path to nothing stays text (a typo is not an image).
 */
export function pastedImagePath(pasted: string, cwd: string, home = os.homedir()): string | undefined {
  let text = pasted.trim();
  if (text === "" || text.includes("\n")) return undefined;
  const quoted = /^(['"])(.+)\1$/.exec(text);
  text = quoted ? quoted[2]! : text.replace(/\\(.)/g, "$1");
  if (text.startsWith("file://")) {
    try {
      text = fileURLToPath(text);
    } catch {
      return undefined;
    }
  }
  if (text.startsWith("~/")) text = path.join(home, text.slice(2));
  if (!imageFile.test(text)) return undefined;
  const file = path.resolve(cwd, text);
  try {
    return statSync(file).isFile() ? file : undefined;
  } catch {
    return undefined;
  }
}
