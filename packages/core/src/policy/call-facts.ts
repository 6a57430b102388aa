import type { Mode } from "./mode.js";
import type { ToolKind } from "./tool-kind.js";
import type { ShellParser } from "./command/index.js";
import type { ProtectedHit } from "./protected-paths.js";

/** One path a call reads or edits, as the runtime resolved it against the workspace. */
export type PathFact = {
  access: "read" | "edit";
  /** As the model wrote it. */
  path: string;
  /** Absolute, as the tool will use it. */
  absolute: string;
  /** Its real location is outside the workspace. */
  external: boolean;
  /** Workspace-relative, with `/`, of its real location; absent when outside the workspace. */
  relative?: string;
  /** Outside the workspace but inside a folder whose reads count as plain reads (the task's scratch folder). */
  inReadRoot?: boolean;
  /** A protected file (see protected-paths.ts) for an edit, or one of Cairn's secrets (secret-paths.ts) for a read. */
  protected?: ProtectedHit;
};

/**
 * What policy needs to know about one call, gathered by the runtime from the tool and the file
 * system, so that deciding is a pure function of data (policy never imports the tools).
 */
export type CallFacts = {
  tool: string;
  kind: ToolKind | "unknown";
  input: Record<string, unknown>;
  paths: PathFact[];
  /** For commands: the classifier's verdict and whether the model itself asked for approval. */
  command?: {
    text: string;
    risk: "safe" | "needs_approval";
    reasons: string[];
    modelAsksApproval: boolean;
    shell: ShellParser;
    /** It would run workspace scripts (package.json's, a Makefile's) that changed during the task: no rule covers it. */
    changedScripts?: boolean;
  };
  /** The tool's own configuration approves this call (an MCP server's autoApprove list). */
  autoApproved: boolean;
  /** A PreToolUse hook's allow, ask or deny (`message`: what the model reads instead of "Blocked by a hook: …"). */
  hook?: "allow" | "ask" | { deny: string; message?: string };
  /** The task's mode, and whether the tool is offered in it. */
  mode?: { now: Mode; offered: boolean };
  /** The tool of the task's previous call. */
  previous?: string;
  /** The first path the call names (as the model or a hook wrote it) that the ignore files block, and their names. */
  ignored?: { path: string; by: string };
};

/** The first protected file the call would change, or secret it would read, if any. */
export function protectedHit(facts: CallFacts): ProtectedHit | undefined {
  return facts.paths.find((p) => p.protected)?.protected;
}

/** What only the person may approve of the call: "changing" a protected file, or "reading" a secret. */
export function guardedAccess(facts: CallFacts): "changing" | "reading" {
  return facts.paths.some((p) => p.access === "edit" && p.protected) ? "changing" : "reading";
}
