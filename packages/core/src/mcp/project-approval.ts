import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { writeFileAtomicSync } from "../disk/atomic-write.js";
import { configDigest, type ConfigDigest } from "../trust/digest.js";
import { isPlainObject, serverEntries } from "./config.js";

/**
 * A project's .mcp.json is code someone else may have committed: each of its servers starts only
 * after the person trusted the file as it is (`cairn trust`, see trust/) or approved that exact
 * entry for that project (`cairn mcp approve`, finer grained). Approvals live in
 * CAIRN_HOME/mcp_approvals.json, keyed by project path + server name + a hash of the entry as
 * written, so editing the entry asks again.
 */
export type ProjectApproval = { project: string; server: string; hash: string; approvedAt: string };

export const approvalsFile = (home: string): string => path.join(home, "mcp_approvals.json");

/** A stable hash of an entry as written: key order does not matter, any value change does. */
export function configHash(raw: unknown): string {
  return `sha256:${createHash("sha256").update(canonicalJson(raw)).digest("hex")}`;
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (isPlainObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** The stored approvals. A missing or unreadable file means none (the safe reading). */
export function loadApprovals(home: string): ProjectApproval[] {
  const file = approvalsFile(home);
  if (!existsSync(file)) return [];
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, "utf8"));
    const list = isPlainObject(parsed) && Array.isArray(parsed.approvals) ? parsed.approvals : [];
    return list.filter(
      (a): a is ProjectApproval =>
        isPlainObject(a) && typeof a.project === "string" && typeof a.server === "string" && typeof a.hash === "string",
    );
  } catch {
    return [];
  }
}

export function isProjectServerApproved(home: string, project: string, server: string, raw: unknown): boolean {
  const hash = configHash(raw);
  return loadApprovals(home).some((a) => a.project === project && a.server === server && a.hash === hash);
}

/** Approves this entry of this project's server, replacing an approval of an older version of it. */
export function approveProjectServer(home: string, project: string, server: string, raw: unknown): ProjectApproval {
  const approval: ProjectApproval = { project, server, hash: configHash(raw), approvedAt: new Date().toISOString() };
  const kept = loadApprovals(home).filter((a) => !(a.project === project && a.server === server));
  mkdirSync(home, { recursive: true });
  writeFileAtomicSync(approvalsFile(home), `${JSON.stringify({ version: 1, approvals: [...kept, approval] }, null, 2)}\n`);
  return approval;
}

/** Forgets every server approval of the project (cairn trust --revoke); returns how many there were. */
export function revokeProjectApprovals(home: string, project: string): number {
  const all = loadApprovals(home);
  const kept = all.filter((a) => a.project !== project);
  if (kept.length === all.length) return 0;
  writeFileAtomicSync(approvalsFile(home), `${JSON.stringify({ version: 1, approvals: kept }, null, 2)}\n`);
  return all.length - kept.length;
}

/**
 * What trust in a whole .mcp.json is bound to (`cairn trust`): its text and the workspace files its
 * servers' commands and arguments name (`node tools/server.js`), so editing one asks again.
 */
export function projectFileDigest(cwd: string, file: string, text: string): ConfigDigest {
  let entries: Record<string, unknown> = {};
  try {
    entries = serverEntries(file, text);
  } catch {
    // A broken file starts nothing; its text alone is what would be trusted.
  }
  const commands = Object.values(entries).flatMap((raw) => {
    if (!isPlainObject(raw)) return [];
    const words = [raw.command, ...(Array.isArray(raw.args) ? raw.args : [])].filter((w): w is string => typeof w === "string");
    return [words];
  });
  return configDigest(cwd, text, commands);
}
