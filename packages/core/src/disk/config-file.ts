import { readFileSync, statSync } from "node:fs";
import { z } from "zod";

/** A configuration file a person must fix; the message names the file and what to do, on one line. */
export class ConfigFileError extends Error {
  override name = "ConfigFileError";
}

/**
 * The JSON of a configuration file, or undefined when there is none (missing or blank). Refuses
 * what is not a regular file (a FIFO would block the read forever), accepts a UTF-8 byte order
 * mark, and reports a syntax error with its line and column.
 */
export function readJsonConfig(file: string): unknown {
  const text = readConfigText(file);
  return text === undefined ? undefined : parseJsonConfig(file, text);
}

/** The text of a configuration file (BOM removed), or undefined when it does not exist. */
export function readConfigText(file: string): string | undefined {
  let kind: "file" | "other";
  try {
    kind = statSync(file).isFile() ? "file" : "other";
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new ConfigFileError(`Cannot read ${file}: ${(error as Error).message.split("\n")[0]}.`);
  }
  if (kind !== "file") throw new ConfigFileError(`${file} is not a regular file (a pipe, device or folder?); replace it with a JSON file or remove it.`);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new ConfigFileError(`Cannot read ${file}: ${(error as Error).message.split("\n")[0]}.`);
  }
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** The JSON in `text` (undefined when blank); a syntax error names its line and column. */
export function parseJsonConfig(file: string, text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ConfigFileError(`${file} is not valid JSON: ${syntaxProblem(text, error as Error)}. Fix the file or move it aside.`);
  }
}

/** "unexpected token } at line 3, column 5", from V8's message and position. */
function syntaxProblem(text: string, error: Error): string {
  const message = error.message.split("\n")[0]!;
  const position = /position (\d+)/.exec(message);
  const lineCol = /line (\d+) column (\d+)/.exec(message);
  const what = message.replace(/^JSON\.parse: /, "").replace(/ in JSON at position \d+.*$/, "").replace(/ \(line \d+ column \d+\)$/, "").replace(/^Unexpected/, "unexpected");
  if (lineCol) return `${what} at line ${lineCol[1]}, column ${lineCol[2]}`;
  if (!position) return what;
  const offset = Number(position[1]);
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  const column = offset - before.lastIndexOf("\n");
  return `${what} at line ${line}, column ${column}`;
}

/** The known name closest to `name` (edit distance), when it is close enough to be a likely typo. */
export function nearestName(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const d = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.ceil(name.length / 3)) ? best : undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** "unknown key "commandPermisions" (did you mean "commandPermissions"?)", for an error message. */
export function unknownKeyProblem(key: string, known: readonly string[]): string {
  const near = nearestName(key, known);
  return `unknown key "${key}"${near ? ` (did you mean "${near}"?)` : ""}`;
}

/**
 * A configuration file whose JSON has the wrong shape, in the one line every such file's problem
 * reads as (settings.json, permissions.json, ...): the file, where in it, what is wrong (an unknown
 * key with the nearest known one), and what to do.
 */
export function schemaProblem(file: string, error: z.ZodError, schema: z.ZodType): string {
  const issue = error.issues[0];
  return `${file}: ${issue ? describeIssue(issue, schema) : "the top level has the wrong shape"}. Fix the file or move it aside.`;
}

/**
 * One schema problem in words: where it is and what is wrong; an unknown key names the nearest
 * known one, since a misspelt key (commandPermisions) would otherwise switch a setting off unseen.
 */
export function describeIssue(issue: z.core.$ZodIssue, schema: z.ZodType): string {
  const where = issue.path.length > 0 ? `"${issue.path.join(".")}"` : "the top level";
  if (issue.code === "unrecognized_keys") {
    const known = knownKeysAt(schema, issue.path);
    const key = issue.keys[0]!;
    const at = issue.path.length > 0 ? ` in ${where}` : "";
    return `${unknownKeyProblem(key, known)}${at}; the keys that can be set here are ${known.join(", ")}`;
  }
  return `${where} ${issue.message.toLowerCase()}`;
}

/** The keys an object schema accepts at `path` (record keys and array indexes pass through). */
function knownKeysAt(schema: z.ZodType, at: readonly PropertyKey[]): string[] {
  let current: z.ZodType | undefined = unwrap(schema);
  for (const segment of at) {
    if (current instanceof z.ZodObject) current = unwrap(current.shape[String(segment)] as z.ZodType);
    else if (current instanceof z.ZodRecord) current = unwrap(current.valueType as z.ZodType);
    else if (current instanceof z.ZodArray) current = unwrap(current.element as z.ZodType);
    else return [];
  }
  return current instanceof z.ZodObject ? Object.keys(current.shape) : [];
}

function unwrap(schema: z.ZodType | undefined): z.ZodType | undefined {
  let current = schema;
  while (current instanceof z.ZodOptional || current instanceof z.ZodNullable || current instanceof z.ZodDefault) current = current.unwrap() as z.ZodType;
  return current;
}
